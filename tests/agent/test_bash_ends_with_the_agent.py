"""A command the bash tool runs ends with the agent, however the agent ends. It runs in its own
process group (so a timeout kills what it started), which nothing that ends the agent reached: a
SIGTERM in the instant the command starts, before its group is known, and an exit that leaves the
event loop without cancelling the tool, left it running with parent PID 1. (A SIGTERM or SIGHUP
while it runs, end to end: tests/e2e/test_print_terminated_command.py.)"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.conftest import REPO
from tests.processes import ended

ABANDONED = """
import asyncio, sys
from pathlib import Path
from compact_agent.agent.tools import shell_groups
from compact_agent.agent.tools.shell import bash_impl
from tests.agent.test_tools import make_env

work = Path(sys.argv[1])
loop = asyncio.new_event_loop()
task = loop.create_task(bash_impl(make_env(work), "sleep 123 & echo $! > child.pid; wait"))

async def running():
    while not shell_groups._running or not (work / "child.pid").read_text().endswith("\\n"):
        await asyncio.sleep(0.01)

(work / "child.pid").write_text("")
loop.run_until_complete(asyncio.wait_for(running(), 60))
sys.exit(0)  # the loop is left with the tool's task pending: nothing cancels it
"""

STARTING = """
import contextlib, signal, subprocess
from compact_agent import stop_signals
from compact_agent.agent.tools import shell_groups

stop_signals.say_when_terminated()
with contextlib.ExitStack() as group:  # as the bash tool starts a command
    with stop_signals.deferred():
        signal.raise_signal(signal.SIGTERM)  # the command is starting: the signal waits for its group
        proc = subprocess.Popen(["sleep", "123"], start_new_session=True)
        print(proc.pid, flush=True)
        group.enter_context(shell_groups.running(proc.pid))
    print("never", flush=True)
"""


def run(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": f"{REPO}:{REPO / 'src'}"}
    return subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, env=env,
                          timeout=120, cwd=REPO)


def test_a_command_left_running_by_an_abandoned_event_loop_is_killed_at_exit(tmp_path: Path) -> None:
    done = run(ABANDONED, str(tmp_path))
    assert done.returncode == 0, done.stderr
    child = int((tmp_path / "child.pid").read_text())
    try:
        assert ended(child), "the command outlived the agent"
    finally:
        if not ended(child, 0):
            os.kill(child, signal.SIGKILL)


def test_a_sigterm_while_a_command_starts_kills_it_once_its_group_is_known() -> None:
    done = run(STARTING)
    lines = done.stdout.split()
    assert done.returncode == -signal.SIGTERM, done.stderr
    assert len(lines) == 1 and done.stderr == "compact-agent: terminated (SIGTERM)\n"
    child = int(lines[0])
    try:
        assert ended(child), "the command outlived the agent"
    finally:
        if not ended(child, 0):
            os.kill(child, signal.SIGKILL)


async def test_a_command_stopped_while_it_starts_is_killed_with_its_group(tmp_path: Path, monkeypatch) -> None:
    """Esc or Ctrl-C in the instant after the command is spawned, before asyncio hands its process
    back (its pipes still connecting): asyncio killed the leader alone, and waited for the output
    pipe the command's job holds, so the job went on and a `-p` run hung until it ended."""
    import asyncio

    from compact_agent.agent.tools.shell import bash_impl
    from tests.agent.test_tools import make_env

    real = asyncio.create_subprocess_exec
    spawned, gate = asyncio.Event(), asyncio.Event()

    async def slow_start(*args, **kwargs):
        proc = await real(*args, **kwargs)
        spawned.set()
        await gate.wait()  # as if the pipes were still connecting
        return proc

    monkeypatch.setattr(asyncio, "create_subprocess_exec", slow_start)
    pid_file = tmp_path / "child.pid"
    task = asyncio.ensure_future(bash_impl(make_env(tmp_path), "sleep 123 & echo $! > child.pid; wait"))
    await asyncio.wait_for(spawned.wait(), 60)
    deadline = time.monotonic() + 60
    while not (pid_file.exists() and pid_file.read_text().endswith("\n")) and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    child = int(pid_file.read_text())
    task.cancel()  # the user stops the call
    await asyncio.sleep(0)
    gate.set()
    try:
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 30)
        assert ended(child), "the command outlived Esc"
    finally:
        if not ended(child, 0):
            os.kill(child, signal.SIGKILL)


async def test_a_command_stopped_while_it_runs_is_reaped_before_the_call_ends(tmp_path: Path, monkeypatch) -> None:
    """Ctrl-C while a command runs: its exit is seen before the cancellation leaves the tool. A
    stopped `-p` run closes its event loop next; asyncio's child watcher, finding the exit after
    that, wrote "Loop ... that handles pid ... is closed" to the user's stderr."""
    import asyncio

    from compact_agent.agent.tools import shell_groups
    from compact_agent.agent.tools.shell import bash_impl
    from tests.agent.test_tools import make_env

    real, procs = asyncio.create_subprocess_exec, []

    async def kept(*args, **kwargs):
        procs.append(await real(*args, **kwargs))
        return procs[-1]

    monkeypatch.setattr(asyncio, "create_subprocess_exec", kept)
    task = asyncio.ensure_future(bash_impl(make_env(tmp_path), "sleep 123"))
    deadline = time.monotonic() + 60
    while not shell_groups._running and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    [proc] = procs
    assert proc.returncode is None  # running
    task.cancel()  # the user stops the call
    with pytest.raises(asyncio.CancelledError):
        await task
    assert proc.returncode == -signal.SIGKILL
