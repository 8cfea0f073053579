"""/help at 40 columns: beside the widest name, `/exit (/quit, /q)`, the descriptions had 19
columns and the list ran to 120 lines of two or three words. Below 60 columns each description goes
under its name, two spaces in; from 60 on it stays beside. /help names Alt-Enter for a new line too,
as usage.md does."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from tests.fakes.openai_server import Reply

from .repl_driver import drive


async def help_lines(tmp_path: Path, width: int) -> list[str]:
    console = Console(record=True, width=width, file=io.StringIO(), force_terminal=False)
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["/help\r"], console=console)
    lines = [line.rstrip() for line in run.out.splitlines()]
    # From /help's own first line: the banner, broken between its items, may start a line with "/help for commands".
    return lines[next(i for i, line in enumerate(lines) if line.startswith("/help") and "for commands" not in line):]


async def test_at_40_columns_each_description_is_under_its_name(tmp_path: Path) -> None:
    lines = await help_lines(tmp_path, 40)
    table = lines[:next(i for i, line in enumerate(lines) if line.startswith("@path"))]
    assert table[:4] == ["/help", "  list commands", "/status", "  model, session, context used /"], table
    assert "/exit (/quit, /q)" in table and table[table.index("/exit (/quit, /q)") + 1] == "  leave", table
    names = [line for line in table if not line.startswith(" ")]
    assert all(line.startswith("/") and "  " not in line for line in names), names  # nothing beside a name
    assert len(table) < 80, table  # was 92 lines, the descriptions 19 columns wide
    flat = " ".join(" ".join(lines).split())
    assert "Esc then Enter (or Alt-Enter), or a line ending in \\, starts a new line" in flat, flat


async def test_at_80_columns_the_descriptions_stay_beside_their_names(tmp_path: Path) -> None:
    lines = await help_lines(tmp_path, 80)
    assert lines[0] == "/help              list commands", lines
    assert any(line.startswith("/exit (/quit, /q)  leave") for line in lines), lines
