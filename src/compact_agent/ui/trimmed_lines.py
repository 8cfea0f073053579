"""A slash command's text written to a file or a pipe, without the spaces rich pads its lines with.

rich lays a table or a grid out to the console's width and fills each line with spaces to its
end: `-p /context > out.txt` wrote every line of /context to 80 columns, trailing spaces a diff,
a `grep ...$` or a script's comparison of lines then trips on. On a terminal they show as nothing
and are left as rich writes them.
"""

from __future__ import annotations

import io
from typing import TextIO, cast


class TrimmedLines(io.TextIOBase):
    """Writes to `out` what it is given at once, but for the spaces at the end of a line: those
    wait for what follows them on the line, and are dropped when the line ends (or nothing does)."""

    def __init__(self, out: TextIO) -> None:
        super().__init__()
        self.out = out
        self.held = ""  # spaces written last, not yet known to be followed by more of their line

    def write(self, s: str) -> int:
        *whole, last = (self.held + s).split("\n")
        kept = last.rstrip(" ")
        self.held = last[len(kept):]
        self.out.write("".join(line.rstrip(" ") + "\n" for line in whole) + kept)
        return len(s)

    def flush(self) -> None:
        self.out.flush()


def trimmed(out: TextIO) -> TextIO:
    """`out` for a console that writes its lines without trailing spaces. The type of a file is what
    rich asks for; it calls only `write`, `flush` and `isatty` (False: not padded for a terminal)."""
    return cast("TextIO", TrimmedLines(out))
