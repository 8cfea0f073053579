"""A dumb terminal (TERM=dumb: an editor's shell buffer, a plain log) gets text only: it printed
`\\x1b[?12l\\x1b[?25h` before the first prompt (the cursor shown by the prompt set up for it) and
`\\x1b[?2004h\\x1b[?2004l` at each turn (bracketed paste turned on and off while the model works),
where prompt_toolkit's own prompt for such a terminal sends no sequence."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .pty_driver import Terminal


def test_a_dumb_terminal_gets_no_escape_sequence(tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("THE-ANSWER")) as server:
        term = Terminal(tmp_path, server.base_url, cols=80, env={"TERM": "dumb"})
        try:
            at = term.read_until("› ")
            at = term.type("hello\r")
            at = term.read_until("THE-ANSWER", at)
            term.read_until("› ", at)
            term.type("/exit\r")
            assert term.finish() == 0
            shown = bytes(term.seen)
            assert b"\x1b" not in shown, shown
        finally:
            term.close()
