"""The REPL ended by SIGTERM or SIGHUP (`kill`, a closed terminal window) says so in one line, as
`-p` does, with the command that goes on with the session, and leaves the terminal as it found it
(echo and line editing on, bracketed paste off): it ended without a word, and a `kill` from
elsewhere left the shell it returned to in raw mode. It still ends by the signal, with no traceback."""

from __future__ import annotations

import signal
import termios
import threading

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .pty_driver import Terminal
from .test_typed_prompt_kill import saved

LINE = "compact-agent: terminated ({}); the session is saved: `compact-agent --resume {}` continues it"


def ended(term: Terminal, sig: signal.Signals) -> str:
    """Send `sig`; what the terminal showed after it, once the process has exited by it."""
    at = len(term.seen)
    term.proc.send_signal(sig)
    assert term.proc.wait(30) == -sig  # by the signal, as before (143 or 129 in a shell)
    term.drain()
    return term.text(at)


def assert_cooked(term: Terminal) -> None:
    lflag = termios.tcgetattr(term.main)[3]
    assert lflag & termios.ECHO and lflag & termios.ICANON, "the terminal was left in raw mode"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_terminated_at_the_prompt_says_how_to_resume(tmp_path, sig):
    with FakeOpenAIServer(lambda req: Reply.text("ANSWERED")) as server:
        term = Terminal(tmp_path, server.base_url, "--yes")
        try:
            term.prompt(term.read_until("/help for commands"))
            at = term.type("first\r")
            term.prompt(term.read_until("ANSWERED", at))
            shown = ended(term, sig)
            assert_cooked(term)
        finally:
            term.close()
    [path] = (tmp_path / "home" / "projects").glob("*/*.jsonl")
    assert LINE.format(sig.name, path.stem) in shown, shown
    assert "Traceback" not in shown and "\x1b[?2004l" in shown  # bracketed paste off again


def test_terminated_during_a_request_says_the_message_is_saved(tmp_path):
    arrived, release = threading.Event(), threading.Event()

    def held(req) -> Reply:
        arrived.set()
        release.wait(60)
        return Reply.text("ok")

    with FakeOpenAIServer(held) as server:
        term = Terminal(tmp_path, server.base_url, "--yes")
        try:
            term.prompt(term.read_until("/help for commands"))
            term.type("remember HERON\r")
            assert arrived.wait(60)
            shown = ended(term, signal.SIGTERM)
            assert_cooked(term)
        finally:
            release.set()
            term.close()
    path = saved(tmp_path / "home", "remember HERON")
    assert LINE.format("SIGTERM", path.stem) in shown, shown
    assert "Traceback" not in shown


def test_terminated_before_anything_was_typed_says_only_that(tmp_path):
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        term = Terminal(tmp_path, server.base_url, "--yes")
        try:
            term.prompt(term.read_until("/help for commands"))
            shown = ended(term, signal.SIGTERM)
            assert_cooked(term)
        finally:
            term.close()
    assert "compact-agent: terminated (SIGTERM)\r\n" in shown and "session is saved" not in shown, shown
    assert not list((tmp_path / "home").glob("projects/*/*.jsonl"))
