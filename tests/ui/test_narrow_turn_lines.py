"""At 60 columns a turn's own lines stay one line each: the spinner's label (`running write_file…
3s · context 1.0k tokens · esc to interrupt` took two rows) and a tool call's line (cut at 100
characters whatever the width, its end wrapped to column 0 under the dot), as the result line
under it already was."""

from __future__ import annotations

import io

from rich.console import Console
from rich.spinner import Spinner

from compact_agent.ui.turn_view import SpinnerLabel, TurnView

LONG = ("for i in $(seq 1 30); do echo line number $i of a rather long output that goes past sixty "
        "columns; done")


def console(width: int) -> Console:
    return Console(record=True, width=width, file=io.StringIO(), force_terminal=False)


def spinner_rows(width: int, tokens: int, doing: str = "running write_file") -> list[str]:
    label = SpinnerLabel(lambda: 103.0, lambda: tokens)
    label.start = 100.0
    label.doing = doing
    c = console(width)
    lines = c.render_lines(Spinner("dots", text=label), c.options, pad=False)
    return ["".join(seg.text for seg in line).rstrip() for line in lines]


def test_the_spinner_label_fits_the_width() -> None:
    assert spinner_rows(100, 1_024) == ["⠋ running write_file… 3s · context 1.0k tokens · esc to interrupt"]
    assert spinner_rows(60, 1_024) == ["⠋ running write_file… 3s · 1.0k tokens · esc to interrupt"]
    assert spinner_rows(50, 1_024) == ["⠋ running write_file… 3s · esc to interrupt"]
    rows = spinner_rows(40, 1_024, "running mcp__github__create_pull_request")
    assert len(rows) == 1 and len(rows[0]) <= 40 and rows[0].endswith("…"), rows


def test_a_tool_call_line_fits_the_width() -> None:
    for width in (60, 80):
        c = console(width)
        view = TurnView(c, lambda: 0, spinner=False)
        view.on_tool({"type": "tool_call", "id": "1", "tool": "bash", "args": {"command": LONG}})
        rows = c.export_text().splitlines()
        assert len(rows) == 1 and len(rows[0]) <= width, rows
        assert rows[0].startswith("● bash(for i in $(seq 1 30); do echo") and rows[0].endswith("…)"), rows
