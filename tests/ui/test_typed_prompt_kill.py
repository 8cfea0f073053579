"""A message typed while the REPL is still starting, then the process killed (SIGTERM, SIGHUP)
before the turn finishes: the message is in the session file as soon as it is entered, and
`-c` shows it and sends it with the next message."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from compact_agent.session.store import load_session_file
from tests.fakes.openai_server import FakeOpenAIServer, Reply, user_messages

from .pty_driver import REPO, Terminal
from .repl_driver import drive
from .test_startup import GATE


def saved(home: Path, text: str, timeout: float = 60) -> Path:
    """The session file once it holds `text` (written by the REPL process; no fixed sleep)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for p in (home / "projects").glob("*/*.jsonl"):
            if text.encode() in p.read_bytes():
                return p
        time.sleep(0.01)
    raise AssertionError(f"{text!r} was never saved under {home}")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
async def test_a_message_typed_while_starting_survives_a_kill(tmp_path, sig):
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(GATE)
    with FakeOpenAIServer(lambda req: Reply.text("ANSWERED")) as server:
        term = Terminal(tmp_path, server.base_url, "--yes", fresh=True,
                        env={"PYTHONPATH": f"{hook}:{REPO / 'src'}", "GATE": str(tmp_path / "never")})
        try:
            banner = term.read_until("/help for commands")
            term.prompt(banner)
            term.read_until("starting…", banner)  # pydantic-ai is held: the session is not built
            term.type("remember PELICAN\r")
            path = saved(tmp_path / "home", "remember PELICAN")
            term.proc.send_signal(sig)
            assert term.proc.wait(30) != 0
        finally:
            term.close()
        assert server.requests == []
        loaded = load_session_file(path)
        assert [p.content for m in loaded.messages for p in m.parts] == ["remember PELICAN"]

        again = await drive(tmp_path, lambda req: Reply.text("I remember"), ["go on\r"], server=server,
                            continue_last=True)
    assert "› remember PELICAN" in again.out and "had not reached the model" in again.out
    sent = user_messages(server.requests[-1])
    assert [m["content"] for m in sent] == ["remember PELICAN", "go on"]


async def test_a_message_sent_in_a_turn_is_saved_once(tmp_path):
    run = await drive(tmp_path, lambda req: Reply.text("hi"), ["hello\r", "again\r"])
    [path] = (tmp_path / "home" / "projects").glob("*/*.jsonl")
    loaded = load_session_file(path)
    assert [p.content for m in loaded.messages for p in m.parts] == ["hello", "hi", "again", "hi"]
    assert not loaded.warnings and run.prompts == ["hello", "again"]
