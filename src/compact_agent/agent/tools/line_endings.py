"""A file's line endings: where its lines break, which ending it mostly uses, and new text written
with it.

A line ends at CRLF, at LF, or at a CR alone (a file from an old Mac): read_file numbers lines so,
as grep does (its text stream reads any of the three as a line break), so both give a line the same
number. The model writes a line break as LF; an edit or a write over an existing file writes it
as the file's own ending (its dominant one: a mixed file is left as it is outside the text that
changes), and the result says when it did.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

BREAK = re.compile(r"\r\n|\r|\n")
NAMES = {"\r\n": "CRLF", "\n": "LF", "\r": "CR"}

__all__ = ["BREAK", "NAMES", "break_count", "dominant", "lines", "with_ending"]


def lines(text: str) -> Iterator[str]:
    """The lines of `text`, each with the ending that closes it (the last may have none); no empty
    line after a final line break."""
    at = 0
    for m in BREAK.finditer(text):
        yield text[at:m.end()]
        at = m.end()
    if at < len(text):
        yield text[at:]


def break_count(text: str, end: int | None = None) -> int:
    """How many line breaks `text` holds (before `end`): the 1-based number of the line at `end` less one."""
    return len(BREAK.findall(text, 0, len(text) if end is None else end))


def dominant(text: str) -> str:
    """The line ending `text` uses most: LF when it has none, or when LF ties with another."""
    crlf = text.count("\r\n")
    counts = {"\n": text.count("\n") - crlf, "\r\n": crlf, "\r": text.count("\r") - crlf}
    return max(counts, key=lambda k: counts[k])  # dict order breaks ties: LF, then CRLF


def with_ending(text: str, ending: str) -> tuple[str, bool]:
    """`text` with each line break written as `ending`, and whether one was not that already. An LF
    ending leaves the text as the model wrote it."""
    if ending == "\n":
        return text, False
    changed = any(m.group() != ending for m in BREAK.finditer(text))
    return (BREAK.sub(ending, text) if changed else text), changed
