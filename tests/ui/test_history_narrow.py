"""`/history` at 60 columns: a compaction's line ('2026-03-04 05:06  compaction (manual, full)  4,512 →
2,230 tokens') is longer than the screen, and rich wrapped it at the last space, leaving the word
`tokens` alone at column 0 on the next line. Now the figures move under the words, whole, in the
column the words begin in; a long description wraps there too, never back to column 0."""

from __future__ import annotations

import io
import re
from pathlib import Path

from rich.console import Console

from compact_agent.ui.commands import dispatch
from compact_agent.ui.history_view import boundary_lines
from tests.fakes.openai_server import FakeOpenAIServer

from .test_commands_terminal import answer, session

WHEN = "2026-03-04 05:06"


async def history_at(tmp_path: Path, width: int) -> str:
    """What `/history` shows at `width` columns after three turns and a /compact."""
    with FakeOpenAIServer(answer) as server:
        s = session(tmp_path, server)
        try:
            for q in ("turn a", "turn b", "turn c"):
                await s.run_turn(q)
            await s.compact()
            c = Console(width=width, record=True, file=io.StringIO(), force_terminal=False)
            await dispatch(s, "/history", c)
        finally:
            s.close()
    return c.export_text(styles=False)


async def test_history_at_60_columns_keeps_a_compactions_figures_together(tmp_path):
    out = await history_at(tmp_path, 60)
    head = [line.rstrip() for line in out[:out.index("messages (")].splitlines()]
    assert "tokens" not in [line.strip() for line in head], out  # the unit alone on a line
    assert all(len(line) <= 60 for line in head if not line.startswith("  /")), out  # a path is never split
    [first] = [i for i, line in enumerate(head) if "compaction (manual, full)" in line]
    assert re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d  compaction \(manual, full\)$", head[first]), out
    assert re.fullmatch(r" {18}[\d,]+ → [\d,]+ tokens", head[first + 1]), out  # under the words, whole


def test_a_line_that_fits_stays_one_line_and_prose_wraps_under_its_words():
    assert boundary_lines(WHEN, "compaction (manual, full)  4,512 → 2,230 tokens", 80) == [
        f"{WHEN}  compaction (manual, full)  4,512 → 2,230 tokens"]
    assert boundary_lines(WHEN, "rewind", 60) == [f"{WHEN}  rewind"]
    edited = "the conversation went on from an earlier point (an answer asked for again, or a branch)"
    lines = boundary_lines(WHEN, edited, 60)
    assert len(lines) > 1 and all(len(line) <= 60 for line in lines), lines
    assert lines[0].startswith(f"{WHEN}  the conversation") and all(x.startswith(" " * 18 + x.strip()) for x in lines[1:])
    assert " ".join(x[18:] for x in lines) == edited


async def test_history_at_40_columns_keeps_the_archives_heading_in_its_column(tmp_path):
    """'the conversation before it:' wrapped at 40 columns, its 'before it:' back at column 0, where
    the archive's path begins, as if it were part of it."""
    head = [line.rstrip() for line in (await history_at(tmp_path, 40)).splitlines()]
    at = next(i for i, line in enumerate(head) if line.strip().startswith("the conversation"))
    assert head[at:at + 2] == [" " * 18 + "the conversation", " " * 18 + "before it:"], head
    assert head[at + 2].startswith("  /"), head  # then the path, from the left
