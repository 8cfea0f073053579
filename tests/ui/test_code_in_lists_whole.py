"""Code in a list item or a block quote of an answer (or indented four spaces) is printed with its
lines whole, for the terminal to wrap, as a fenced block at the top level is (test_code_lines_whole.py):
rich laid it out in the item's or the quote's column and broke a long line with a line break,
padding the rest, so code copied from the terminal had a newline inside an expression. The list's
numbers and bullets, the quote's bar and the highlighting stay; every other line fits the width."""

from __future__ import annotations

import re

from rich.cells import cell_len

from .test_code_lines_whole import LONG, raw  # LONG: a 220-character line of code


def shown(answer: str, width: int) -> tuple[list[str], str]:
    """The answer's lines as a terminal of `width` columns gets them (before it wraps them), and
    the raw output (test_code_lines_whole.raw: streamed seven characters at a time)."""
    out = raw(answer, width)
    return re.sub(r"\x1b\[[0-9;]*m", "", out).split("\n"), out


def code_line(lines: list[str], code: str, width: int) -> str:
    """The one line holding `code` whole; every other line within the width."""
    holding = [line for line in lines if line.rstrip().endswith(code)]
    assert len(holding) == 1, lines
    assert all(cell_len(line) <= width for line in lines if line not in holding), lines
    return holding[0]


def test_code_in_a_numbered_list_item_is_whole() -> None:
    answer = f"Do this:\n1. Install:\n   ```python\n   def f():\n       {LONG}\n   ```\n2. Run it\n\nDone.\n"
    for width in (40, 80):
        lines, out = shown(answer, width)
        line = code_line(lines, LONG, width)
        assert line == " " * 10 + LONG, lines  # under the item's words: its column, the block's own indent
        assert "   1 Install:" in [x.rstrip() for x in lines] and "   2 Run it" in [x.rstrip() for x in lines]
        assert lines[lines.index(line) - 1] == "      def f():", lines
        assert "\x1b[94mdef\x1b[0m" in out, out  # highlighted as before


def test_code_in_a_block_quote_is_whole_behind_its_bar() -> None:
    answer = f"> The fix:\n>\n> ```\n> {LONG}\n> ```\n"
    for width in (40, 80):
        lines, _ = shown(answer, width)
        assert code_line(lines, LONG, width) == f"  ▌  {LONG}", lines
        assert lines[0].rstrip() == "⏺ ▌ The fix:", lines


def test_code_in_a_nested_list_is_whole() -> None:
    command = f"echo {LONG}"
    answer = f"1. Run it\n   - nested:\n     ```sh\n     {command}\n     ```\n   - more\n"
    for width in (40, 80):
        lines, _ = shown(answer, width)
        assert code_line(lines, command, width) == " " * 9 + command, lines
        assert [x.strip() for x in lines if "•" in x] == ["• nested:", "• more"], lines


def test_an_indented_code_block_is_whole() -> None:
    answer = f"Run:\n\n    {LONG}\n\nDone.\n"
    for width in (40, 80):
        lines, _ = shown(answer, width)
        assert code_line(lines, LONG, width) == f"   {LONG}", lines  # where a fenced block's lines go


def test_an_answer_without_code_is_drawn_as_before() -> None:
    answer = "1. one\n2. two, " + "word " * 30 + "\n\n> quoted " + "text " * 20 + "\n"
    for width in (40, 80):
        lines, _ = shown(answer, width)
        assert all(cell_len(line) <= width for line in lines), lines
        assert lines[0].rstrip() == "⏺  1 one", lines
