"""`compact-agent -r` with one session in the directory: its picker asked "resume which? (number,
Enter for 1, …)" and answered a wrong number with "give a number from 1 to 1". With one session
there is nothing to choose between: it asks whether to resume it, and a wrong number is told that 1
is the only session."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.openai_server import FakeOpenAIServer

from .pty_driver import Terminal, one_session
from .test_banner_and_picker_narrow import ok, shown


def test_the_picker_of_one_session_asks_about_it(tmp_path: Path) -> None:
    with FakeOpenAIServer(ok) as server:
        one_session(tmp_path, server.base_url, "the only one")
        term = Terminal(tmp_path, server.base_url, "-r")
        try:
            term.read_until("resume it? (Enter or 1, Ctrl-D to quit)")
            after = term.type("2\r")
            told = term.read_until("1 is the only session: Enter or 1 resumes it, Ctrl-D quits", after)
            again = term.read_until("resume it?", told)
            text = "\n".join(shown(term, 0, again))
            assert "from 1 to 1" not in text and "resume which" not in text, text
            term.type("\r")
            term.prompt(again)
            assert term.finish() == 0
        finally:
            term.close()
