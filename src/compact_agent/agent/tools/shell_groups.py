"""The process groups of the commands running now (the bash tool, the REPL's `!cmd`, a hook), killed
however the agent ends.

A command runs in its own session and process group (shell.py), so that a timeout or Ctrl-C kills
what it started too; for the same reason nothing that ends the agent reaches it. A SIGTERM or SIGHUP
(`kill`, a closed terminal window) ends the agent at once, by the signal's default action
(stop_signals.py), and no `finally` of the tool runs: the command went on with parent PID 1. So the
signal's handler kills the groups listed here first (`kill_all`), and so does the interpreter's exit,
for a run whose event loop was left without its tasks being cancelled. Killed with SIGKILL, as a
timeout and Ctrl-C kill them: a command that traps or ignores SIGTERM must not outlive the agent.

Nothing here imports pydantic-ai: stop_signals.py is installed before anything heavy is loaded.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
from collections.abc import Iterator

_running: set[int] = set()


def timed_out(limit: float) -> str:
    """What a command killed at its timeout of `limit` seconds says of it, a bash call's result
    (`exit code: 137 (...)`, shell.exit_line) and a hook's line alike."""
    return f"timed out after {limit:g}s: killed by SIGKILL, with its child processes"


def kill_group(pgid: int) -> None:
    """SIGKILL to every process of the group `pgid` (gone already: nothing)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


@contextlib.contextmanager
def running(pgid: int) -> Iterator[None]:
    """The group `pgid` (a command's, its leader's pid) is killed if the agent ends within the block.
    Left before the leader's pid can be taken again: the block ends after the command is waited for."""
    _running.add(pgid)
    try:
        yield
    finally:
        _running.discard(pgid)


def kill_all() -> None:
    """Kill the group of every command running now. Safe in a signal handler: it only sends signals,
    and works on a copy (a copy of a set is taken whole, under the GIL)."""
    for pgid in _running.copy():
        kill_group(pgid)


atexit.register(kill_all)
