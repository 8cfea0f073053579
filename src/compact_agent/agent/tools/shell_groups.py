"""The process groups of the commands running now (the bash tool, the REPL's `!cmd`, a hook), killed
however the agent ends.

A command runs in its own session and process group (shell.py), so that a timeout or Ctrl-C kills
what it started too; for the same reason nothing that ends the agent reaches it. A SIGTERM or SIGHUP
(`kill`, a closed terminal window) ends the agent at once, by the signal's default action
(stop_signals.py), and no `finally` of the tool runs: the command went on with parent PID 1. So the
signal's handler kills the groups listed here first (`kill_all`), and so does the interpreter's exit,
for a run whose event loop was left without its tasks being cancelled. Killed with SIGKILL, as a
timeout and Ctrl-C kill them: a command that traps or ignores SIGTERM must not outlive the agent.

`waiting_for_keys` finds a command's process waiting for keys from a terminal it does not have.

Nothing here imports pydantic-ai: stop_signals.py is installed before anything heavy is loaded.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
from collections.abc import Coroutine, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from asyncio.subprocess import Process

_running: set[int] = set()


def timed_out(limit: float) -> str:
    """What a command killed at its timeout of `limit` seconds says of it, a bash call's result
    (`exit code: 137 (...)`, shell.exit_line) and a hook's line alike."""
    return f"timed out after {limit:g}s: killed by SIGKILL, with its child processes"


def kill_group(pgid: int, sig: signal.Signals = signal.SIGKILL) -> None:
    """`sig` (SIGKILL) to every process of the group `pgid` (gone already: nothing)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


@contextlib.contextmanager
def running(pgid: int) -> Iterator[None]:
    """The group `pgid` (a command's, its leader's pid) is killed if the agent ends within the block.
    Left before the leader's pid can be taken again: the block ends after the command is waited for."""
    _running.add(pgid)
    try:
        yield
    finally:
        _running.discard(pgid)


async def started(start: Coroutine[Any, Any, Process]) -> Process:
    """The process `start` makes (asyncio.create_subprocess_exec of a command in its own group),
    started whole even when the caller is cancelled meanwhile (Esc, Ctrl-C in the instant a command
    starts): the command may be running already, and asyncio's own clean-up killed its leader alone,
    then waited for the output pipe, which a job the command started holds open. A `-p` run stopped
    so hung, and the job went on. Now, cancelled, it waits for the start to end, kills the group,
    and the cancellation goes on."""
    import asyncio  # not at import: stop_signals.py loads this module before anything heavy

    task = asyncio.ensure_future(start)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        while not task.done():  # a few milliseconds; cancelled again meanwhile, it still waits
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait({task})
        if not task.cancelled() and task.exception() is None:
            proc = task.result()
            kill_group(proc.pid)
            reaped = asyncio.ensure_future(proc.wait())  # its pipes closed, as an awaited command's are
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait({reaped}, timeout=5)
        raise


async def exit_code(proc: Process) -> int:
    """`proc`'s return code once it has ended. Process.wait() also waits for its pipes to close, which
    a background job (`cmd &`) may hold open for ever; the return code alone tells when bash is done."""
    import asyncio

    while proc.returncode is None:
        await asyncio.sleep(0.02)
    return proc.returncode


async def reaped(proc: Process, limit: float = 2.0) -> None:
    """Wait, cancelled or not, up to `limit` seconds for the exit of `proc`, killed as its call was
    stopped, to be seen (`exit_code`). A stopped `-p` run closes its event loop next, and asyncio's
    child watcher, finding the exit after that, wrote "Loop ... that handles pid ... is closed" to the
    user's stderr."""
    import asyncio

    seen = asyncio.ensure_future(asyncio.wait_for(exit_code(proc), limit))
    while not seen.done():  # SIGKILL: a few milliseconds; cancelled again meanwhile, it still waits
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait({seen})
    if not seen.cancelled():
        seen.exception()  # a timeout is not the caller's concern: it is stopping anyway


def waiting_for_keys(session: int) -> tuple[int, str] | None:
    """A process of the session `session` (a command's: its leader's pid) that waits for keys from
    a terminal it does not have, as (pid, name); None if there is none, or no /proc to tell. Such a
    process sleeps in poll or select with a standard input that is a pipe open for writing only: vim,
    finding its input at end of file, reads its error output instead (for `foo | xargs vim`), and
    that is the output pipe, whose end it holds can never be read."""
    try:
        pids = [name for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return None
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                stat = f.read()
            name, fields = stat[stat.index(b"(") + 1 : stat.rindex(b")")], stat[stat.rindex(b")") + 2 :].split()
            if fields[0] != b"S" or int(fields[3]) != session:  # sleeping, in the command's session
                continue
            if not os.readlink(f"/proc/{pid}/fd/0").startswith("pipe:"):
                continue
            with open(f"/proc/{pid}/fdinfo/0", "rb") as f:
                flags = next(int(line.split()[1], 8) for line in f if line.startswith(b"flags:"))
            with open(f"/proc/{pid}/wchan", "rb") as f:
                wchan = f.read()
        except (OSError, ValueError, IndexError, StopIteration):  # gone meanwhile, not ours, no fd 0
            continue
        if flags & os.O_ACCMODE == os.O_WRONLY and (b"poll" in wchan or b"select" in wchan):
            return int(pid), name.decode(errors="replace")
    return None


def kill_all() -> None:
    """Kill the group of every command running now. Safe in a signal handler: it only sends signals,
    and works on a copy (a copy of a set is taken whole, under the GIL)."""
    for pgid in _running.copy():
        kill_group(pgid)


atexit.register(kill_all)
