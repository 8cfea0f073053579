"""A command's output as a terminal leaves it to read (the bash tool's `Screen`).

A command writes for a terminal even without one: colours (`\\x1b[32mPASSED\\x1b[0m`), titles and
links (OSC), cursor moves, progress bars that redraw one line with a carriage return
(`\\rprogress 1%\\rprogress 2%…`: 30,000 characters for the one line a user sees). `Screen` reads
the output as it comes: each escape sequence is removed (CSI, OSC, the two-byte ones, and the 8-bit
forms a terminal obeys as well: CSI, OSC, DCS written as one C1 control; one split between two
reads is held until it ends), and a line a lone CR rewrote is kept in its last version
where the versions are evidently one line redrawn: each says how far something is (a percentage, a
count) in the same words, the numbers and bars aside (`progress 1%`, `progress 2%`; `step 1/3`). Any other lone CR ends a line, as read_file reads it:
a file with CR line ends (classic Mac text, some CSV exports) keeps every line. CR LF ends a line and
is kept as it was. What it removed or rewrote is counted, for the line `note` gives.

On bytes: those it looks for are ASCII, which no byte of a UTF-8 character is, or a C1 control
(`\\xc2` then `\\x80`-`\\x9f`), which is no part of another; output with a NUL
byte (binary, UTF-16 or 32, where they may be half a character) or a UTF-16 mark is given as it
comes, from there on. What it keeps does not depend on where the reads split the output.
"""

from __future__ import annotations

import codecs
import re

#: The longest unfinished line version held back for a carriage return that may rewrite it; a
#: longer one is given as it is (a CR after it then ends the line).
MAX_LINE = 65_536
#: The longest escape sequence held back while unfinished (an OSC never ended is given as text).
MAX_HELD = 4_096

#: What a string sequence (OSC, and in 8-bit form DCS, SOS, PM, APC) holds before its end: text on
#: one line, at most MAX_HELD bytes (a stray `ESC ]` takes no text with it up to a BEL far below).
_BODY = rb"(?:[^\x07\x1b\r\n\xc2]|\xc2(?!\x9c)){0,%d}" % MAX_HELD
#: An escape sequence: CSI, OSC, or one of two bytes; and their 8-bit forms, the C1 controls as UTF-8
#: writes them (`\xc2\x9b` CSI, `\xc2\x9d` OSC, `\xc2\x90` DCS … ended by `\xc2\x9c` ST), which a
#: terminal obeys as it does the 7-bit ones. No byte of another UTF-8 character is `\xc2` then `\x80`-`\x9f`.
_ESCAPE = re.compile(rb"(?:\x1b\[|\xc2\x9b)[0-?]*[ -/]*[@-~]|(?:\x1b\]|\xc2[\x90\x98\x9d\x9e\x9f])" + _BODY
                     + rb"(?:\x07|\x1b\\|\xc2\x9c)|\x1b[ -/]*[0-~]")
#: One begun at the end of what has come so far (a `\xc2` there may begin a C1 control).
_BEGUN = re.compile(rb"(?:\x1b(?:\[[0-?]*[ -/]*|\]" + _BODY + rb"\x1b?|[ -/]*)"
                    rb"|\xc2(?:\x9b[0-?]*[ -/]*|[\x90\x98\x9d\x9e\x9f]" + _BODY + rb"\x1b?)?)\Z")
#: A C1 control left when the sequences are gone (a lone ST, NEL, a reverse line feed): removed as a stray ESC is.
_C1 = re.compile(rb"\xc2[\x80-\x9f]")
#: What ends a line version: CR LF or LF (the line), or a lone CR (the version).
_END = re.compile(rb"\r?\n|\r")
_WORD = re.compile(rb"[A-Za-z]+")
#: How a progress line shows how far it is: a percentage or a count (`3/10`; not a date's `2024/01/02`).
_PROGRESS = re.compile(rb"\d%|(?<![\d/.])\d+/\d+(?![\d/.])")


def _redrawn(before: bytes, after: bytes) -> bool:
    """Whether `after` is `before` redrawn: both say how far something is (a percentage, a count)
    with the same words around it (a number, a bar, a rate may change). Two rows of data
    (`A1,10`, `A2,20`) are not: each is kept."""
    return bool(_PROGRESS.search(before) and _PROGRESS.search(after)) and _WORD.findall(before) == _WORD.findall(after)


class Screen:
    """Feed it the output's chunks (`feed`), then `end`; each gives the bytes to keep."""

    def __init__(self) -> None:
        self._held = b""  # an escape sequence begun at the end of the last chunk
        self._line = bytearray()  # the line version being written (a CR at its end: LF may follow)
        self._pending: bytes | None = None  # a finished version the next may redraw
        self._blank = 0  # empty versions after it (lines, if the next does not redraw it)
        self._given = False  # the version being written was too long to hold: given as it came
        self._raw: bool | None = None  # not text for a terminal: given as it comes
        self.redraws = self.breaks = self.escapes = 0  # what `note` tells

    def feed(self, chunk: bytes) -> bytes:
        if self._raw is None and chunk:  # UTF-16 (a .env catted, with its mark) is not ASCII's
            self._raw = chunk.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
        if self._raw or b"\0" in chunk:  # nor are binary bytes, UTF-16 or 32: a CR, an ESC may be
            rest = b"" if self._pending is None else self._pending + b"\r"  # half a character there
            rest += bytes(self._line) + self._held
            self._raw, self._pending, self._line, self._held = True, None, bytearray(), b""
            return rest + chunk
        data = self._held + chunk
        self._held = b""
        if b"\x1b" in data or b"\xc2" in data:
            if (begun := _BEGUN.search(data)) is not None and len(data) - begun.start() <= MAX_HELD:
                data, self._held = data[:begun.start()], data[begun.start():]
            data = self._unescaped(data)
        return self._lines(bytes(self._line) + data, final=False)

    def end(self) -> bytes:
        """The rest: the last line if it did not end (a CR at its end drops: no LF comes), and an
        escape begun and never finished, as text."""
        if self._raw:
            return b""
        held, self._held = self._held, b""
        rest = bytes(self._line) + self._strays(held)
        self._line = bytearray()
        return self._lines(rest, final=True)

    def note(self) -> str:
        """One line saying what was removed or rewritten ('' when nothing was)."""
        said = [f"{self.redraws:,} redraw{'s' * (self.redraws != 1)} of a line (carriage return) shown "
                "as the last version" if self.redraws else "",
                f"{self.escapes:,} escape sequence{'s' * (self.escapes != 1)} removed" if self.escapes else "",
                f"{self.breaks:,} lone carriage return{'s' * (self.breaks != 1)} shown as line break"
                f"{'s' * (self.breaks != 1)}" if self.breaks else ""]
        said = [s for s in said if s]
        return f"[output as a terminal leaves it: {'; '.join(said)}; `| cat -v` shows every byte]" if said else ""

    def _unescaped(self, data: bytes) -> bytes:
        kept, at = [], 0
        for found in _ESCAPE.finditer(data):
            kept.append(data[at:found.start()])
            at = found.end()
            self.escapes += 1
        return self._strays(b"".join([*kept, data[at:]]))

    def _strays(self, text: bytes) -> bytes:
        """`text` without a stray ESC or C1 control, or one that began a sequence never ended."""
        self.escapes += text.count(b"\x1b")
        text = text.replace(b"\x1b", b"")
        self.escapes += len(_C1.findall(text))
        return _C1.sub(b"", text)

    def _lines(self, data: bytes, final: bool) -> bytes:
        out, at = bytearray(), 0
        for found in _END.finditer(data):
            if found.group() == b"\r" and found.end() == len(data) and not final:
                break  # an LF may follow: a line end, not a rewrite
            out += self._ended(data[at:found.start()], found.group() if found.group() != b"\r" else None)
            at = found.end()
        rest = data[at:]
        if final:
            out += self._ended(rest, b"")
            rest = b""
        elif len(rest) - (rest[-1:] == b"\r") > MAX_LINE:  # too long to hold: given as it is
            out += self._flushed()
            cr = rest.endswith(b"\r")
            out += rest[:-1] if cr else rest
            rest, self._given = b"\r" if cr else b"", True
        self._line = bytearray(rest)
        return bytes(out)

    def _flushed(self) -> bytes:
        """The version held, as a line of its own (the next one did not redraw it)."""
        if self._pending is None:
            return b""
        out = self._pending + b"\n" * (1 + self._blank)
        self.breaks += 1 + self._blank
        self._pending, self._blank = None, 0
        return out

    def _ended(self, version: bytes, eol: bytes | None) -> bytes:
        """A version ended by a lone CR (`eol` None) or the line it ends (`eol`: CR LF, LF, b'' at
        the output's end)."""
        if self._given:  # its start given already: a CR ends its line
            self._given = False
            if eol is None:
                self.breaks += 1
            return version + (b"\n" if eol is None else eol)
        if len(version) > MAX_LINE:  # as when it came in pieces: given as it is, ending its line
            self.breaks += eol is None
            return self._flushed() + version + (b"\n" if eol is None else eol)
        if eol is not None:  # the line's last version: the one held if this is empty
            if not version:
                out = eol if self._pending is None else self._pending + eol
            else:
                out = self._take(version) + version + eol
            self._pending, self._blank = None, 0
            return out
        if not version:
            self._blank += self._pending is not None  # the CR of '\rprogress' redraws nothing
            return b""
        out = self._take(version)
        self._pending = version
        return out

    def _take(self, version: bytes) -> bytes:
        """What comes before `version`: nothing where it redraws the version held, else that one."""
        if self._pending is not None and _redrawn(self._pending, version):
            self.redraws += 1
            self._pending, self._blank = None, 0
            return b""
        return self._flushed()
