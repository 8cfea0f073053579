"""Text cut and wrapped to a width in screen cells, as the terminal counts it.

A Chinese or Japanese character and most emoji take two cells of the terminal. `textwrap` and a
cut at `n` characters count one each, so a line of such text cut or wrapped at 60 characters
took up to 120 columns, and the terminal wrapped it again, at column 0. The REPL's own cutting and
wrapping counts cells here (rich's count, the one its console prints by); ASCII text is cut and
wrapped where it was.
"""

from __future__ import annotations

from rich.cells import cell_len, get_character_cell_size


def head(text: str, n: int) -> str:
    """The start of `text` that takes at most `n` cells."""
    used = 0
    for i, char in enumerate(text):
        used += get_character_cell_size(char)
        if used > n:
            return text[:i]
    return text


def clip(text: str, n: int) -> str:
    """`text` within `n` cells: cut, with `…`, when it takes more."""
    return text if cell_len(text) <= n else head(text, max(0, n - 1)) + "…"


def wrap(text: str, width: int, indent: str = "", fold: bool = True) -> list[str]:
    """`text` in lines of at most `width` cells, broken at spaces (white space between words taken
    as one space, as textwrap takes it); the lines after the first begin with `indent`. A word
    longer than a line is cut at the width (`fold`), or stands alone on its line, longer."""
    lines: list[str] = []
    line = ""  # the line being filled, its indent in it
    for word in text.split():
        lead = indent if lines else ""
        if line and cell_len(line) + 1 + cell_len(word) <= width:
            line += " " + word
            continue
        if line:
            lines.append(line)
            lead = indent
        while fold and cell_len(lead) + cell_len(word) > width and (room := width - cell_len(lead)) > 0:
            part = head(word, room) or word[0]
            lines.append(lead + part)
            word, lead = word[len(part):], indent
            if not word:
                break
        line = lead + word if word else ""
    if line:
        lines.append(line)
    return lines
