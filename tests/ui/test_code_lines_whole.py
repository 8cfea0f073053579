"""A long line of code in an answer is printed whole, for the terminal to wrap: laid out in the
answer's column, a 220-character line was broken with a line break and the continuation padded,
even at 200 columns, so the code copied from the terminal had a newline inside an expression and
trailing spaces. Its highlighting, its place three columns in and the blank lines around the block
stay as they were."""

from __future__ import annotations

import io
import re

from rich.console import Console

from compact_agent.ui.turn_view import TurnView

LONG = "result = compute(" + ", ".join(f"argument_{i}" for i in range(16)) + ", extr)"  # 220 characters


def raw(answer: str, width: int) -> str:
    console = Console(width=width, file=io.StringIO(), force_terminal=True, color_system="standard")
    view = TurnView(console, lambda: 0, spinner=False)
    for i in range(0, len(answer), 7):  # as it streams
        view.on_text(answer[i:i + 7])
    view.end()
    out = console.file.getvalue()
    assert isinstance(out, str)
    return out


def test_a_long_code_line_is_printed_whole_at_any_width() -> None:
    assert len(LONG) == 220
    answer = f"Run this:\n\n```python\ndef f():\n    {LONG}\n    return result\n```\n\nDone.\n"
    for width in (40, 80, 200):
        out = raw(answer, width)
        plain = re.sub(r"\x1b\[[0-9;]*m", "", out)
        lines = plain.split("\n")
        assert f"       {LONG}" in lines, out  # one line, no break, no padding after it
        at = lines.index(f"       {LONG}")
        assert lines[at - 1] == "   def f():" and lines[at + 1] == "       return result", lines
        assert lines[at - 2] == "" and lines[at + 2] == "", lines  # the block's blank lines
        assert "\x1b[94mdef\x1b[0m" in out, out  # highlighted as before


def test_code_right_after_a_paragraph_is_printed_whole_too() -> None:
    out = raw(f"Here:\n```\n{LONG}\n```\nThen this.\n", 80)
    assert f"\n   {LONG}\n" in out, out
