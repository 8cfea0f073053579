"""A prompt shown again, after it was sent (a resumed session's last exchanges, a line typed ahead
during a turn): its first lines, and how much more there is.

A resumed session whose last message was a 26-line log printed all 26 lines above the prompt, and a
paragraph of a few thousand characters as many rows. While it is typed, a paste that large is one
placeholder (`[pasted 26 lines]`: pastes.py); shown again, it is its first rows and a dim
`… 22 more lines` (`… 2,310 more characters` for one long line). A prompt of a few rows is shown whole.
Continuation rows are indented under the first, as the input line has them.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from ..words import plural

#: A prompt that takes more rows than this on the screen is cut to `HEAD` rows.
MOST_ROWS = 6
HEAD = 4
MARK = "› "
INDENT = "  "


def _rows(line: str, width: int) -> int:
    return max(1, -(-cell_len(line) // width))


def _cut(line: str, width: int) -> str:
    """The start of `line` that fits in `width` cells, at a word's end where there is one."""
    out = ""
    for ch in line:
        if cell_len(out + ch) > width:
            break
        out += ch
    head, space, _ = out.rpartition(" ")
    return head if space and cell_len(head) > width // 2 else out


def excerpt(prompt: str, width: int) -> tuple[list[str], str]:
    """The lines of `prompt` to show at `width` columns (the mark and indent not included) and what
    the rest is (`22 more lines`; '' when it is shown whole)."""
    width = max(10, width - len(MARK))
    lines = prompt.splitlines() or [""]
    if sum(_rows(line, width) for line in lines) <= MOST_ROWS:
        return lines, ""
    shown: list[str] = []
    used = 0
    for line in lines:
        rows = _rows(line, width)
        if used + rows > HEAD:
            break
        shown.append(line)
        used += rows
    if not shown:  # the first line alone takes more than HEAD rows: its start, cut at a word
        room = width * HEAD - 1
        head = _cut(lines[0], room)
        shown = [head + "…"]
        if len(lines) == 1:
            return shown, f"{len(lines[0]) - len(head):,} more characters"
        return shown, f"{plural(len(lines) - 1, 'more line')}"
    return shown, plural(len(lines) - len(shown), "more line")


def print_prompt(console: Console, prompt: str) -> None:
    """`› prompt` on `console`, bounded (`excerpt`); the text as given (no markup, no highlighting).
    A line longer than the width wraps under its own text, as the rows `excerpt` counted (it went
    on at column 0, under the mark)."""
    shown, rest = excerpt(prompt, console.width)
    body = Text("\n".join(shown))
    if rest:
        body.append(f"\n… {rest}", style="dim")
    text = Text()
    for i, row in enumerate(body.wrap(console, max(10, console.width - len(MARK)))):
        text.append(("\n" + INDENT) if i else MARK)
        text.append_text(row)
    console.print(text, markup=False, highlight=False)
