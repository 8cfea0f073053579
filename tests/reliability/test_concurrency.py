"""Two processes on one session: the second is refused in one line and never writes.

The store takes an flock on `<session>/lock` before it loads or writes anything; the lock dies
with its process, so a killed run never leaves a session locked.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from compact_agent.session.store import SessionStore
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, message_text

from .common import REPO, cli_args, session
from .harness import Zygote


def _entries(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


async def test_second_process_on_the_same_session_is_refused_and_writes_nothing(tmp_path: Path, zygote: Zygote
                                                                                ) -> None:
    """Two real `compact-agent --continue -p` processes (forked from the suite's zygote)."""
    home, cwd = tmp_path / "home", tmp_path / "project"
    inside = threading.Event()
    release = threading.Event()

    def responder(req: ChatRequest) -> Reply:
        last = message_text(req.messages[-1])
        if "SLOW" in last:
            inside.set()
            release.wait(20)
        return Reply.text(f"done: {last[:20]}")

    with FakeOpenAIServer(responder) as server:
        s = session(home, cwd, server, api_key="k")
        await s.run_turn("first turn")
        await s.aclose()
        path = s.store.path
        before = path.read_bytes()
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("COMPACT_AGENT_")}
        env.update({"COMPACT_AGENT_HOME": str(home), "PYTHONPATH": str(REPO / "src")})
        a = zygote.spawn("cli", [*cli_args(server, "SLOW one"), "--api-key", "k", "--continue"], env, cwd,
                         tmp_path / "a.out", tmp_path / "a.err")
        try:
            assert inside.wait(30), "the first process never reached the provider"
            mid = path.read_bytes()  # A has saved its prompt and is waiting for the answer, holding the lock
            b = zygote.spawn("cli", [*cli_args(server, "second process"), "--api-key", "k", "--continue"], env,
                             cwd, tmp_path / "b.out", tmp_path / "b.err")
            b_code = b.wait(60)
            assert path.read_bytes() == mid  # B wrote nothing
        finally:
            release.set()
            a_code = a.wait(60)
    assert a_code == 0, a.err.read_text()
    assert json.loads(a.out.read_text())["result"].startswith("done")
    b_err = b.err.read_text()
    errors = [ln for ln in b_err.strip().splitlines() if not ln.startswith("compact-agent: warning:")]
    assert b_code == 1 and len(errors) == 1, b_err  # (a warning: --api-key is visible to other users)
    assert errors[0].startswith("compact-agent: session ") and "is in use by another compact-agent process" in b_err
    assert json.loads(b.out.read_text())["is_error"] is True  # json mode: the error object, and nothing else
    # One writer: the file is the old content plus A's entries, chained parent to child.
    after = path.read_bytes()
    assert after.startswith(before)
    entries = _entries(path)
    assert all(e["parent"] == p["id"] for p, e in zip(entries, entries[1:], strict=False))
    assert "second process" not in after.decode()


def test_a_killed_process_does_not_leave_the_session_locked(tmp_path: Path) -> None:
    code = ("import sys, time; sys.path.insert(0, sys.argv[2]);"
            "from compact_agent.session.store import SessionStore; from pathlib import Path;"
            "s = SessionStore(Path(sys.argv[1]), 's1'); s.lock(); print('locked', flush=True); time.sleep(60)")
    p = subprocess.Popen([sys.executable, "-c", code, str(tmp_path), str(REPO / "src")], stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout is not None and p.stdout.readline().strip() == "locked"
        other = SessionStore(tmp_path, "s1")
        try:
            other.lock()
            raise AssertionError("the lock was not held")
        except Exception as e:  # noqa: BLE001
            assert "in use" in str(e)
    finally:
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
    deadline = time.monotonic() + 5
    while True:  # the kernel drops the flock with the process
        try:
            SessionStore(tmp_path, "s1").lock()
            break
        except Exception:  # noqa: BLE001
            assert time.monotonic() < deadline
            time.sleep(0.05)


def test_cleaning_temp_files_never_touches_another_sessions(tmp_path: Path) -> None:
    """Sessions of one project share folders; a start-up clean-up removes only its own leftovers."""
    a, b = SessionStore(tmp_path, "a"), SessionStore(tmp_path, "b")
    b.dir.mkdir(parents=True)
    (tmp_path / "compact-history").mkdir()
    theirs = [tmp_path / ".b.jsonl.1234abcd.tmp", tmp_path / "compact-history" / ".b-20260101-000000.jsonl.99.tmp",
              b.dir / ".notes.md.k3j_9x2a.tmp"]
    ours = [tmp_path / ".a.jsonl.1234abcd.tmp", tmp_path / "compact-history" / ".a-20260101-000000.jsonl.99.tmp"]
    a.dir.mkdir(parents=True)
    (a.dir / "tool-results").mkdir()
    ours += [a.dir / ".notes.md.k3j_9x2a.tmp", a.dir / "tool-results" / ".call_1.txt.0a1b2c3d4e5f.tmp"]
    for p in theirs + ours:
        p.write_text("half")
    a.lock()
    assert not any(p.exists() for p in ours)
    assert all(p.exists() for p in theirs)
