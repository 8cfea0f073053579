"""How grep shows a matching line: whole when short, else a window around the match headed by its
column and the line's length, so text deep inside a minified file is seen, not just counted."""

from __future__ import annotations

from typing import Any, NamedTuple

LINE_SHOWN = 500  # characters of a matching line shown; of a longer one, a window around the match


class _Hit(NamedTuple):
    """A match found in a line: its number, the piece of the line it is in (`text`, composed when the
    match was found so; `piece` as the file has it) and where that piece starts in the line."""

    n: int
    text: str
    piece: str
    at: int
    found: Any

    def shown(self, length: int, more: bool = False) -> str:
        """The line as grep shows it, `length` characters long (`more`: at least that, the search
        stopped before its end)."""
        if self.text is not self.piece:  # columns and length counted in the composed text
            length += len(self.text.rstrip("\r\n")) - len(self.piece.rstrip("\r\n"))
        shown = _shown_line(self.text, self.at, self.found, length, more)
        if self.text is not self.piece and shown == self.text.rstrip():  # the whole line: as the file has it
            shown = self.piece.rstrip()
        return f"{self.n}:{shown}"


def _shown_line(piece: str, at: int, found: Any, length: int, more: bool = False) -> str:
    """A matching line as grep shows it: whole when short, else LINE_SHOWN characters around the
    first match, after the match's 1-based column and the line's length (`N+` when the search
    stopped before the line's end), with `…` where the line goes on. `piece` is the part of the
    line the match is in (the whole line unless it is longer than LINE_MAX_BYTES), from column `at`."""
    text = piece.rstrip()
    through = at + len(piece.rstrip("\r\n"))  # where the piece ends in the line
    if at == 0 and through == length and not more and len(text) <= LINE_SHOWN:
        return text
    start = min(found.start(), len(text))
    where = f"[match at column {at + start + 1:,} of {length:,}{'+' if more else ''}] "
    room = LINE_SHOWN - len(where)
    span = min(found.end(), len(text)) - start
    lo = min(max(0, start - max(0, room - span) // 2), max(0, len(text) - room))
    hi = lo + room
    before = "…" if lo > 0 or at > 0 else ""
    after = "…" if hi < len(text) or through < length or more else ""
    return f"{where}{before}{text[lo:hi]}{after}"
