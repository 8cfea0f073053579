"""A dumb terminal's prompt (TERM=dumb) is made with an output that sends no cursor sequence, by
prompt_toolkit's public means (its `create_app_session`, an output class of our own), at 40 and at
80 columns: the prompt's own output shows and hides no cursor and has the terminal's size, and the
output other questions use is left as it was (it was told the cursor was shown already, through an
attribute prompt_toolkit keeps private). A whole session at either width gets text only."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from compact_agent.ui.prompt_input import make_prompt
from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .pty_driver import Terminal

SHOW = "\x1b[?12l\x1b[?25h"


@pytest.mark.parametrize("columns", [40, 80])
def test_the_prompt_of_a_dumb_terminal_sends_no_cursor_sequence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  columns: int) -> None:
    monkeypatch.setenv("TERM", "dumb")
    terminal = io.StringIO()
    shared = Vt100_Output(terminal, lambda: Size(rows=24, columns=columns), term="dumb")
    with create_pipe_input() as inp, create_app_session(input=inp, output=shared):
        session = make_prompt(tmp_path / "root", [], tmp_path)
        assert terminal.getvalue() == ""  # nothing before the first prompt
        assert session.output is not shared and session.output.get_size().columns == columns
        session.output.hide_cursor()
        session.output.show_cursor()
        session.output.flush()
        assert terminal.getvalue() == ""
        shared.show_cursor()  # left as it was: it shows the cursor when asked to
        shared.flush()
        assert terminal.getvalue() == SHOW


@pytest.mark.parametrize("columns", [40, 80])
def test_a_dumb_terminal_session_gets_text_only_at_any_width(tmp_path: Path, columns: int) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("THE-ANSWER " + "word " * 30)) as server:
        term = Terminal(tmp_path, server.base_url, cols=columns, env={"TERM": "dumb"})
        try:
            at = term.read_until("› ")
            at = term.type("hello, " + "a long line typed at the prompt " * 3 + "\r")
            at = term.read_until("THE-ANSWER", at)
            term.read_until("› ", at)
            term.type("/exit\r")
            assert term.finish() == 0
            assert b"\x1b" not in bytes(term.seen), bytes(term.seen)
        finally:
            term.close()
