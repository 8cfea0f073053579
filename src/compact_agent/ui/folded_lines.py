"""The command or diff under the permission question, each line folded to the terminal's width.

What is approved is the whole command, so every character of it is on the screen, in its order:
a line too long for the terminal goes on under itself after a dim `↳`, four columns in, never at
column 0 where it would read as a line of its own (or one outside the diff). Lines are measured in
screen cells, as the terminal counts them: a line of Chinese text that takes twice its length in
columns went out unbroken and the terminal wrapped it at column 0. A line breaks at a space where
the word after it fits on the next line; a word longer than a line is folded where it stands: moved
whole to a line of its own, `echo` was left alone on the first line and a long command read as its
first word. Tabs are laid out as the terminal would (every 8 columns), since a tab counted as one
cell made a line look shorter than it is. A command is shown whole; a long diff up to a line break
(`shown_whole`).
"""

from __future__ import annotations

from rich.cells import get_character_cell_size
from rich.console import Console
from rich.text import Text

#: Where the lines under the question begin, and what a line's continuation begins with.
INDENT, GOES_ON = "    ", "↳ "


def fold(line: str, width: int) -> list[str]:
    """`line` in pieces of at most `width` cells, in its order; the white space at a break is
    dropped, nothing else. Each step reads at most a line's width ahead: a command can be one line
    of megabytes."""
    line = line.expandtabs(8)
    pieces: list[str] = []
    pos = 0
    while (fit := max(pos + 1, _fit(line, pos, width))) < len(line):  # the end of what fits
        if line[fit].isspace():  # a break right at the edge
            pieces.append(line[pos:fit].rstrip())
            pos = fit
            while pos < len(line) and line[pos].isspace():
                pos += 1
            continue
        space = next((i for i in range(fit - 1, pos, -1) if line[i].isspace()), pos)  # before the word cut
        ahead = _fit(line, space + 1, width)
        if space > pos and line[pos:space].strip() and \
                (ahead == len(line) or any(c.isspace() for c in line[space + 1:ahead + 1])):
            pieces.append(line[pos:space].rstrip())  # the word after the space fits the next line
            pos = space + 1
        else:  # a word longer than a line: folded where it stands
            pieces.append(line[pos:fit])
            pos = fit
    if pos < len(line) or not pieces:
        pieces.append(line[pos:])
    return pieces


def _fit(line: str, start: int, width: int) -> int:
    """Where the text of `line` from `start` passes `width` cells (its length, where it never does)."""
    used = 0
    for i in range(start, len(line)):
        used += get_character_cell_size(line[i])
        if used > width:
            return i
    return len(line)


def hanging(body: str, console: Console) -> Text:
    """`body`, four columns in, each line folded to `console`'s width; its continuations after a
    dim `↳` in the diff's marker column (a context line's own indentation looks like plain
    indentation would)."""
    width = max(20, console.width - len(INDENT) - len(GOES_ON))
    out = Text()
    for line in body.splitlines():
        for n, piece in enumerate(fold(line, width)):
            if out:
                out.append("\n")
            out.append(INDENT)
            if n:
                out.append(GOES_ON, style="dim")
            out.append(piece)
    return out


#: A diff under the question is cut at a line break past this many characters (a command never is).
DIFF_SHOWN_CHARS = 4000


def shown_whole(tool: str, body: str) -> str:
    """What is shown under the question: a command whole, since what is approved is the whole of
    it (a command cut at 4,000 characters hid what it ran after them behind a bare `…`); a long diff
    up to a line break, with how many lines are not shown."""
    if tool == "bash" or len(body) <= DIFF_SHOWN_CHARS:
        return body
    cut = body.rfind("\n", 0, DIFF_SHOWN_CHARS)
    cut = cut if cut > 0 else DIFF_SHOWN_CHARS
    left = body[cut:].strip("\n").count("\n") + 1
    return f"{body[:cut]}\n… {left:,} more line{'s' if left != 1 else ''} of the change not shown"
