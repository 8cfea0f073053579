"""At the menu for a bash line the deny rules cannot read (`held`), which offers no "always", an `a`
(the usual menu's "always") did nothing without a word: the menu stayed as it was, and the user,
who had answered, was left waiting for a line saying what was allowed. It now says under the keys
that nothing was allowed and why, and the menu waits for an answer it takes (Enter: no)."""

from __future__ import annotations

import io
import re
import threading

from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from compact_agent.ui.approval import run_menu

NOTE = "a: nothing allowed · no “always” for a line the deny rules cannot read; each run is asked"


class Screen(io.StringIO):
    """The terminal: once the note is drawn, Enter is pressed (the menu's answer, no)."""

    def __init__(self, answer: threading.Event) -> None:
        super().__init__()
        self.answer = answer

    def write(self, text: str) -> int:
        written = super().write(text)
        if "nothing allowed" in self.getvalue():
            self.answer.set()
        return written


def test_a_at_the_held_menu_says_nothing_was_allowed() -> None:
    answer = threading.Event()
    screen = Screen(answer)
    with create_pipe_input() as inp:
        inp.send_text("a")

        def press() -> None:  # Enter once the note is up (Ctrl-D, no, if it never comes)
            inp.send_text("\r" if answer.wait(10) else "\x04")

        pressing = threading.Thread(target=press)
        pressing.start()
        picked = run_menu("bash", inp, Vt100_Output(screen, lambda: Size(rows=24, columns=100), term="xterm"), held=True)
        pressing.join()
    assert picked == "deny"
    shown = " ".join(re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", " ", screen.getvalue()).split())
    assert NOTE in shown, shown
