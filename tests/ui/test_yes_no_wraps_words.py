"""A yes/no question (`/rewind N`, `/compact --preview`) that takes more than a line waits broken
between its words, as it stays once answered: the window's own wrapping cut it anywhere, 'the f'
at the end of one line and 'iles changed' at the start of the next, while it waited. Once
answered, the answer stays beside '[y/N]'."""

from __future__ import annotations

import io
import re

from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output
from rich.console import Console

from compact_agent.ui.approval import yes_no
from tests.fakes.openai_server import Reply

from .repl_driver import drive

QUESTION = ("rewind to before “look: log line 1 some text log line 2 some text log line 3…”? 6 messages "
            "and the files changed since go back; the plan of those turns too [y/N] ")


async def asked_on(columns: int) -> str:
    """What a terminal of `columns` columns shows of QUESTION while it waits, its lines as shown."""
    screen = io.StringIO()
    output = Vt100_Output(screen, lambda: Size(rows=24, columns=columns), term="xterm")
    with create_pipe_input() as inp:
        inp.send_text("y\r")  # the Enter typed after the answer goes with it (answer_enter.py)
        assert await yes_no(QUESTION, inp, output)
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "\n", screen.getvalue())  # each move of the cursor: another line
    return shown.replace("\r", "\n")


async def test_the_question_waits_broken_between_words():
    for columns in (100, 60):
        lines = [line.strip() for line in (await asked_on(columns)).split("\n") if line.strip()]
        words = {*QUESTION.split(), "y"}  # the answer, beside '[y/N]' while an Enter may follow it
        assert all(w in words for line in lines for w in line.split()), (columns, lines)
        assert " ".join(" ".join(lines).split()).startswith(" ".join(QUESTION.split())), lines


async def test_the_answer_stays_on_the_questions_last_line(tmp_path):
    """Printed once answered, the question keeps the answer beside '[y/N]': in 80 columns a question
    whose last line just fitted put the 'y' on a line of its own."""
    typed = "see: raw 0 raw 1 raw 2 raw 3 raw 4 raw 5 raw 6 raw 7 why?"  # its question's last line: 79 columns
    console = Console(record=True, width=80, file=io.StringIO(), force_terminal=False)
    run = await drive(tmp_path, lambda req: Reply.text("ok"), [typed + "\r", "second\r", "/rewind 0\r", "n"],
                      console=console, keys_answer=True)
    asked = run.out[run.out.index("rewind to before"):run.out.index("nothing rewound")].splitlines()
    assert asked[-1].endswith("[y/N] n"), asked
    assert all(len(line.rstrip()) <= 80 for line in asked), asked


async def test_a_line_typed_ahead_answers_no_not_the_y_in_it():
    """Keys other than y, n and the rest were ignored: 'TYPED-MSG-5' typed ahead answered the Y in
    it, yes, and a /compact --preview rewrote the session. The first character that is neither says no."""
    output = Vt100_Output(io.StringIO(), lambda: Size(rows=24, columns=100), term="xterm")
    with create_pipe_input() as inp:
        inp.send_text("TYPED-MSG-5")
        assert not await yes_no(QUESTION, inp, output)
    with create_pipe_input() as inp:
        inp.send_text("\x1b[Ay")  # an arrow key is no answer; the y after it is
        assert await yes_no(QUESTION, inp, output)
