"""A markdown table in an answer whose columns cannot fit with their values whole is shown as
records: at 40 columns an 8-column table had every cell cut with an ellipsis (`1…` for 1000) and
its headings broken into single words. Each row is now a `heading: value` line per cell, a blank
line between rows; where the columns fit (80 columns) the table is drawn as it was."""

from __future__ import annotations

import io

from rich.console import Console

from compact_agent.ui.turn_view import TurnView

ANSWER = """Here:

| name | size | owner | group | mode | mtime | kind | note |
|---|---|---|---|---|---|---|---|
| alpha | 1000 | root | wheel | 0644 | 2026-12-01 | file | first |
| beta | 20000 | me | staff | 0755 | 2026-12-02 | dir | second one |

After.
"""


def shown(width: int) -> list[str]:
    console = Console(record=True, width=width, file=io.StringIO(), force_terminal=False)
    view = TurnView(console, lambda: 0, spinner=False)
    view.on_text(ANSWER)
    view.end()
    return [line.rstrip() for line in console.export_text().splitlines()]


def test_at_40_columns_each_row_is_a_record_with_its_values_whole() -> None:
    lines = shown(40)
    assert "…" not in "\n".join(lines), lines
    assert lines == ["⏺ Here:", "",
                     "  name: alpha", "  size: 1000", "  owner: root", "  group: wheel", "  mode: 0644",
                     "  mtime: 2026-12-01", "  kind: file", "  note: first", "",
                     "  name: beta", "  size: 20000", "  owner: me", "  group: staff", "  mode: 0755",
                     "  mtime: 2026-12-02", "  kind: dir", "  note: second one", "",
                     "  After.", ""], lines


def test_at_80_columns_the_table_is_drawn() -> None:
    lines = shown(80)
    assert "   name   size   owner  group  mode  mtime       kind  note" in lines, lines
    assert "   alpha  1000   root   wheel  0644  2026-12-01  file  first" in lines, lines
    assert "   beta   20000  me     staff  0755  2026-12-02  dir   second one" in lines, lines
