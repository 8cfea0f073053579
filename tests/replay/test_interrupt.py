"""Ctrl-C during `compact-agent analyze` of many transcripts: the run ends at once, its workers with it.

It used to take longer than a whole run: leaving the worker pool waited for every queued transcript,
and a worker that got the interrupt only ended its current transcript and went on to the next."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="process groups and a terminal for the progress bar")

#: Two workers whatever the machine's cores, so the run's length does not depend on them.
MAIN = "import os; os.cpu_count = lambda: 2; from compact_agent.cli import main; main()"


def long_chat(steps: int) -> list[dict]:
    """An OpenAI chat transcript whose replay through every strategy takes several seconds."""
    chat: list[dict] = [{"role": "user", "content": "read every module"}]
    for i in range(steps):
        chat.append({"role": "assistant", "content": f"reading src/pkg/mod_{i}.py", "tool_calls": [
            {"id": f"c{i}", "type": "function",
             "function": {"name": "bash", "arguments": json.dumps({"cmd": f"cat src/pkg/mod_{i}.py"})}}]})
        chat.append({"role": "tool", "tool_call_id": f"c{i}", "content": f"def func_{i}(): src/pkg/mod_{i - 1}.py\n" * 75})
    chat.append({"role": "assistant", "content": "done"})
    return chat


def read_until(fd: int, text: bytes, deadline: float) -> bytes:
    """What the terminal shows, read until `text` appears (or the deadline passes)."""
    seen = b""
    while text not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                seen += os.read(fd, 65_536)
            except OSError:  # the other end closed: the program ended
                break
    return seen


def test_ctrl_c_ends_a_run_of_many_transcripts_at_once_with_one_line_and_no_workers_left(tmp_path: Path):
    transcript = tmp_path / "long.json"
    transcript.write_text(json.dumps(long_chat(800)))  # ~10 s of replay each
    temp = tmp_path / "temp"  # its temporary folders: the workers' replays keep their stores there
    temp.mkdir()
    master, terminal = os.openpty()  # stderr a terminal: the progress bar says the replay is under way
    proc = subprocess.Popen([sys.executable, "-c", MAIN, "analyze", *[str(transcript)] * 5, "--window", "16000"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=terminal,
                            start_new_session=True, env={**os.environ, "COLUMNS": "120", "TMPDIR": str(temp)})
    os.close(terminal)
    try:
        shown = read_until(master, b"replaying files", time.monotonic() + 90)
        assert b"replaying files" in shown and proc.poll() is None, shown
        os.killpg(proc.pid, signal.SIGINT)  # as the terminal sends Ctrl-C: to every process of the group
        sent = time.monotonic()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=20)
        took = time.monotonic() - sent
        assert took < 5, f"{took:.1f} s from Ctrl-C to the end (each queued transcript takes ~10 s)"
        after = read_until(master, b"interrupted\r\n", time.monotonic() + 5)
        with pytest.raises(ProcessLookupError):  # not one process of the group left: no orphaned worker
            os.killpg(proc.pid, 0)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        os.close(master)
        assert proc.stdout is not None
        proc.stdout.close()
    assert proc.returncode == 130
    assert not list(temp.iterdir()), "the interrupted workers' folders were left behind"
    lines = [line for line in after.decode(errors="replace").splitlines() if line.strip()]
    assert lines[-1].endswith("compact-agent: interrupted") and "Traceback" not in after.decode(errors="replace"), after
