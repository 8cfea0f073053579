"""`/history`'s row of a reply kept cut off (a SIGTERM, a torn stream, Esc) ended in its note, and the
row was then clipped to the terminal's width: for a part longer than the row the note was lost
(`9 assistant    SLOWSTREAM word0 … word21…`), though usage.md says it is in that row. The text is
now clipped and the note kept whole after it, or under it where the row is too narrow for both."""

from __future__ import annotations

import io

import pytest
from pydantic_ai.messages import ModelRequest, UserPromptPart
from rich.console import Console

from compact_agent.agent.run.unfinished import CUT, SIGNAL_CUT, STOPPED, cut_reply
from compact_agent.ui.commands import dispatch
from compact_agent.ui.history_view import CUT_OFF, SIGNAL_CUT_HERE, STOPPED_HERE
from tests.fakes.openai_server import FakeOpenAIServer

from .test_commands_terminal import answer, session

WORDS = " ".join(f"word{i}" for i in range(200))
TERM = "a termination signal (SIGTERM)"


@pytest.mark.parametrize(("mark", "note"), [(SIGNAL_CUT.format(signal=TERM), SIGNAL_CUT_HERE.format(signal=TERM)),
                                            (CUT, CUT_OFF), (STOPPED, STOPPED_HERE)])
@pytest.mark.parametrize("width", [180, 80])
async def test_the_note_of_a_long_reply_cut_off_stays_in_its_row(tmp_path, mark, note, width):
    with FakeOpenAIServer(answer) as server:
        s = session(tmp_path, server)
        try:
            asked = ModelRequest(parts=[UserPromptPart("tell me")])
            s.messages = [asked, cut_reply([asked], [WORDS], mark)]
            c = Console(width=width, record=True, file=io.StringIO(), force_terminal=False)
            await dispatch(s, "/history", c)
        finally:
            s.close()
    lines = [line.rstrip() for line in c.export_text(styles=False).splitlines()]
    assert all(len(line) <= width for line in lines), lines
    at = next(i for i, line in enumerate(lines) if line.startswith("     1 assistant"))
    row = " ".join(line[20:] for line in lines[at:])
    assert row.startswith("word0 word1") and "…" in row and row.endswith(note), lines
    if width == 180:
        assert len(lines) == at + 1, lines  # on the row itself, the text clipped before it
