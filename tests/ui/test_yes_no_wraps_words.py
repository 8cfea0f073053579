"""A yes/no question (`/rewind N`, `/compact --preview`) that takes more than a line waits broken
between its words, as it stays once answered: the window's own wrapping cut it anywhere, 'the f'
at the end of one line and 'iles changed' at the start of the next, while it waited."""

from __future__ import annotations

import io
import re

from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from compact_agent.ui.approval import yes_no

QUESTION = ("rewind to before “look: log line 1 some text log line 2 some text log line 3…”? 6 messages "
            "and the files changed since go back; the plan of those turns too [y/N] ")


async def asked_on(columns: int) -> str:
    """What a terminal of `columns` columns shows of QUESTION while it waits, its lines as shown."""
    screen = io.StringIO()
    output = Vt100_Output(screen, lambda: Size(rows=24, columns=columns), term="xterm")
    with create_pipe_input() as inp:
        inp.send_text("y")
        assert await yes_no(QUESTION, inp, output)
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "\n", screen.getvalue())  # each move of the cursor: another line
    return shown.replace("\r", "\n")


async def test_the_question_waits_broken_between_words():
    for columns in (100, 60):
        lines = [line.strip() for line in (await asked_on(columns)).split("\n") if line.strip()]
        words = set(QUESTION.split())
        assert all(w in words for line in lines for w in line.split()), (columns, lines)
        assert " ".join(" ".join(lines).split()).startswith(" ".join(QUESTION.split())), lines
