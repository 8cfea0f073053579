"""Typing into the approval menu is not answering it (menu_typing.py): a person typing their next
message as the menu came up, or into one already on screen, had `ok go ahead⏎` allow the command for
the session (its `a`), `hello⏎` run it (Enter takes the selected Yes), and lost what they typed. A key
no choice takes starts typing; answer keys until a pause go with it, kept for the prompt; an answer
after the pause is taken. Driven through a pipe, on the menu's own clock: no real waiting."""

from __future__ import annotations

import io
import re
import threading

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.input.typeahead import get_typeahead
from prompt_toolkit.output.vt100 import Vt100_Output

from compact_agent.ui.approval import run_menu
from compact_agent.ui.menu_typing import TYPING_GAP

NOTE = "keys typed here are kept for your next message"


class Screen(io.StringIO):
    """The terminal; `shown` is set once the typing note is drawn."""

    def __init__(self) -> None:
        super().__init__()
        self.shown = threading.Event()

    def write(self, text: str) -> int:
        written = super().write(text)
        if NOTE in " ".join(re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", " ", self.getvalue()).split()):
            self.shown.set()
        return written


@pytest.mark.parametrize(("typed", "then", "picked"), [
    ("ok go ahead\r", "\x1b", "deny"),  # its `k` and `a` are keys of the menu
    ("hello\r", "y", "once"),  # its Enter would take the selected Yes
    ("thanks\r", "n\r", "instead"),
    ("/permissions\r", "a", "always"),  # its `i` is "instead"
])
def test_keys_typed_as_words_answer_nothing_and_are_kept(typed: str, then: str, picked: str) -> None:
    now = [100.0]
    screen = Screen()
    with create_pipe_input() as inp:
        inp.send_text(typed)

        def answer() -> None:  # after a pause (on the menu's clock): Ctrl-D, no, if the note never came
            if screen.shown.wait(10):
                now[0] += TYPING_GAP + 0.1
                inp.send_text(then)
            else:
                inp.send_text("\x04")

        answering = threading.Thread(target=answer)
        answering.start()
        out = Vt100_Output(screen, lambda: Size(rows=24, columns=100), term="xterm")
        got = run_menu("bash", inp, out, clock=lambda: now[0])
        answering.join()
        kept = "".join(k.data for k in get_typeahead(inp))
    assert got == picked
    assert kept.startswith(typed), kept  # for the prompt, in order


def test_a_key_typed_after_a_pause_answers_at_once() -> None:
    now = [100.0]
    with create_pipe_input() as inp:
        inp.send_text("y")
        got = run_menu("bash", inp, Vt100_Output(io.StringIO(), lambda: Size(rows=24, columns=100), term="xterm"),
                       clock=lambda: now[0])
        kept = "".join(k.data for k in get_typeahead(inp))
    assert got == "once" and kept == ""
