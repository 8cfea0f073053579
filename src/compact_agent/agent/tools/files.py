"""read_file: a file as the model reads it, bounded (line and character caps, each saying how to
get the rest), and images as the model takes them.

Reading is its own concept beside writing (edits.py): it records what the model has seen
(file_state.py), which is what write_file and edit_file then check. `read_file_text` is reused to
inline `@path` mentions and to restore files after compaction; `view_text` says what the `@path`
attachment line promises, from the same code.
"""

from __future__ import annotations

import io
import os
import shlex
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, BinaryIO

from ...config import Settings
from ...words import plural
from ..safety.checked_open import open_read
from ..safety.permissions import resolve_path
from . import images
from .base import (
    MAX_LINE_CHARS,
    NotRun,
    ToolEnv,
    ToolFailure,
    _directory_refusal,
    _not_found,
    _numbered,
    _shown,
)
from .line_endings import lines as text_lines
from .text_encoding import SNIFF_BYTES, UTF8, Encoding, decode, escaped_bytes, sniff
from .text_encoding import shown as shown_text

#: What is read of one line of a big file: more than MAX_LINE_CHARS characters of any width, so the
#: line is still shown cut (with its note); the rest is skipped unread, so a 1 GiB line costs 8 KB.
LINE_READ_BYTES = MAX_LINE_CHARS * 4 + 8
#: How much of a cut line's rest the cut note's command shows at a time.
NEXT_BYTES = 4_000


class _Stream:
    """The lines of a file too big to load whole, and `start`, the byte offset of the last one given.

    A byte an 8-bit or UTF-8 file's encoding cannot read is kept as a surrogate escape (one
    character per byte, so the bytes behind any part of a line are known) and shown as U+FFFD: not
    fatal. UTF-16 and UTF-32 are read through a decoder, each line's bytes counted by encoding it.
    A line ends at CRLF, LF or a lone CR, as in a file read whole (line_endings.py)."""

    def __init__(self, f: BinaryIO, enc: Encoding) -> None:
        self.f, self.enc, self.start = f, enc, len(enc.bom)

    def __iter__(self) -> Iterator[str]:
        self.f.seek(len(self.enc.bom))
        yield from self._wide(self.f) if self.enc.wide else self._bytes(self.f)

    def _bytes(self, f: BinaryIO) -> Iterator[str]:
        # Read as Latin-1, one character per byte, for the text stream to split lines at CR too.
        for raw in self._lines(io.TextIOWrapper(f, encoding="latin-1", newline=""), "latin-1"):
            yield raw.encode("latin-1").decode(self.enc.codec, errors="surrogateescape")

    def _wide(self, f: BinaryIO) -> Iterator[str]:
        yield from self._lines(io.TextIOWrapper(f, encoding=self.enc.codec, errors="replace", newline=""),
                               self.enc.codec)

    def _lines(self, text: io.TextIOWrapper, codec: str) -> Iterator[str]:
        """Each line's first LINE_READ_BYTES characters, ending dropped, the rest skipped unread."""
        at, cr = len(self.enc.bom), False

        def read(limit: int) -> str:
            nonlocal at, cr
            piece = text.readline(limit)
            if cr and piece == "\n":  # the limit fell between a CR and its LF: the LF ends the line before
                at += len(piece.encode(codec))
                piece = text.readline(limit)
            cr = piece.endswith("\r")
            return piece

        while line := read(LINE_READ_BYTES):
            self.start, at = at, at + len(line.encode(codec))
            if not line.endswith(("\n", "\r")):
                while more := read(1 << 16):
                    at += len(more.encode(codec))
                    if more.endswith(("\n", "\r")):
                        break
            yield line.rstrip("\r\n")

    def line_start(self, _n: int) -> int:
        """Where the line just given starts (its number is known to the reader, not needed here)."""
        return self.start


def _line_starts(parts: list[str], enc: Encoding) -> Callable[[int], int]:
    """The byte offset where line n starts in a file read whole as `parts` (its lines, each with
    its ending), found on demand (only a cut line needs it) for n that never decreases."""
    n, pos = 1, len(enc.bom)

    def start(line: int) -> int:
        nonlocal n, pos
        while n < line:
            pos += len(parts[n - 1].encode(enc.codec, enc.errors))
            n += 1
        return pos

    return start


def _cut_note(length: int | None, path: str, after: int, enc: Encoding) -> str:
    """What follows a line cut at MAX_LINE_CHARS: how long it was (None: unknown, the rest of a big
    file's line was skipped unread) and how to reach the rest, which no offset of read_file does.
    `after` is the 1-based byte offset in the file just past the part shown: `tail -c` counts
    bytes, so the command starts right after that part whatever its characters, on any system.
    UTF-16 and UTF-32 bytes go through iconv, so the command prints text."""
    size = "" if length is None else f" of {length:,}"
    arg = shlex.quote("./" + path if path.startswith("-") else path)
    to_text = f" | iconv -f {enc.iconv} -t UTF-8" if enc.wide else ""
    return (f" […line truncated: the first {MAX_LINE_CHARS:,}{size} characters; grep finds text in the rest, "
            f"`tail -c +{after} {arg} | head -c {NEXT_BYTES}{to_text}` shows the next {NEXT_BYTES:,} bytes]")


def read_image(env: ToolEnv, path: str | Path, *, confined: bool = True) -> str | list[Any] | None:
    """An image file as the model gets it (images.py), or None when `path` is not an image: the
    image itself when the model takes images, else one line saying what it is. The same fence as
    a text read holds (`confined`)."""
    p = resolve_path(env.cwd, path)
    if confined and env.permissions.read_refusal(p):
        return None  # read_file_text words the refusal
    if not p.is_file() or (info := images.sniff(p)) is None:
        return None
    return images.image_content(_shown(env, p), p, info, sees=env.images, max_bytes=env.settings.image_max_bytes)


@dataclass(frozen=True)
class TextView:
    """What read_file shows of a text file: `text` as the model reads it (a ToolFailure when it
    shows none of it), lines `start`-`end` of `total`, `cut` of them cut at MAX_LINE_CHARS."""

    text: str
    start: int = 0
    end: int = 0
    total: int = 0
    cut: int = 0
    encoding: Encoding = UTF8

    @property
    def partial(self) -> bool:
        return self.start > 1 or self.end < self.total


def _encoding_note(shown: str, text: str, enc: Encoding) -> str:
    """A line before the text of a file that is not plain UTF-8, so the model knows what its
    characters stand for and that an edit keeps them (text shown as U+FFFD is bytes that are not UTF-8)."""
    if enc.codec == "utf-8":
        if not (stray := escaped_bytes(text)):
            return ""
        return (f"[{shown} is UTF-8 but for {stray:,} byte{'s' if stray != 1 else ''} that "
                f"{'are' if stray != 1 else 'is'} not, shown as \ufffd; edits keep them]\n")
    mark = " with a byte-order mark" if enc.bom else ""
    return f"[{shown} is {enc.name} text{mark}, not UTF-8; edits keep that encoding]\n"


def view_text(settings: Settings, p: Path, shown: str, offset: int | None = None,
              limit: int | None = None) -> TextView:
    """The lines of the regular file `p` that read_file shows, read and cut as it does, without
    recording the read: read_file_text and the `@path` attachment line (run/attachments.py) both
    say what the model gets from this one place. `p` is resolved and checked: it is opened once,
    as checked (safety/checked_open.py), and everything shown is read from that one descriptor."""
    with open_read(p) as f:
        return _view(settings, f, shown, offset, limit)


def _view(settings: Settings, f: BinaryIO, shown: str, offset: int | None, limit: int | None) -> TextView:
    size = os.fstat(f.fileno()).st_size
    enc = sniff(f.read(SNIFF_BYTES))
    f.seek(0)
    if enc is None:
        return TextView(ToolFailure(f"{shown} is a binary file ({plural(size, 'byte')}); not shown."))
    huge = size > settings.read_max_bytes
    if huge and offset is None and limit is None:
        return TextView(ToolFailure(
            f"{shown} is {size} bytes, over the {settings.read_max_bytes}-byte read limit; read a slice "
            "with offset and limit (e.g. offset=1, limit=500) or search it with grep."
        ))
    note = ""
    if huge:
        stream = _Stream(f, enc)
        lines: Iterator[str] = iter(stream)
        line_start: Callable[[int], int] = stream.line_start
        if enc.codec != "utf-8":
            note = _encoding_note(shown, "", enc)
    else:
        if (decoded := decode(f.read(), enc)) is None:
            if not enc.bom:  # UTF-16 without a mark in its first bytes only
                return TextView(ToolFailure(f"{shown} is a binary file ({plural(size, 'byte')}); not shown."))
            return TextView(ToolFailure(
                f"{shown} starts with a {enc.name} byte-order mark but is not {enc.name} text ({size} bytes); not shown."))
        text, enc = decoded
        note = _encoding_note(shown, text, enc)
        parts = list(text_lines(text))  # each with its ending: CRLF, LF or a lone CR
        lines = (part.rstrip("\r\n") for part in parts)
        line_start = _line_starts(parts, enc)
    if limit is not None and limit < 0:
        return TextView(ToolFailure(f"limit {limit}: it is how many lines to read from offset, not below 0."))
    back = -int(offset) if offset is not None and offset < 0 else 0  # refused, once the count is known
    start = max(1, int(offset or 1)) if not back else sys.maxsize
    count = int(limit) if limit and limit > 0 else settings.read_default_lines
    kept: list[str] = []
    chars = total = cut = 0
    full = False  # stopped early because the character cap was hit
    for total, line in enumerate(lines, 1):  # noqa: B007 - total is the line count after the loop
        if total < start or len(kept) >= count or full:
            continue
        if len(line) > MAX_LINE_CHARS:
            head = line[:MAX_LINE_CHARS]
            after = line_start(total) + len(head.encode(enc.codec, "surrogateescape")) + 1
            line = head + _cut_note(None if huge else len(line), shown, after, enc)
        line = shown_text(line)
        if kept and chars + len(line) > settings.tool_result_max_chars:
            full = True
            continue
        cut += len(line) > MAX_LINE_CHARS
        kept.append(line)
        chars += len(line) + 8
    if total == 0:
        return TextView(f"{shown} is empty.", encoding=enc)
    if back:  # said, with where the end is: it was read from line 1 as if asked for the start
        last = min(back, total)
        return TextView(ToolFailure(f"offset {offset}: lines count from 1, not from the end; {shown} has "
                                    f"{plural(total, 'line')}, so the last {plural(last, 'line')} "
                                    f"start{'s' if last == 1 else ''} at offset={total - last + 1}."))
    if start > total:
        return TextView(ToolFailure(f"{shown} has {total} line{'' if total == 1 else 's'}; offset {start} is past the end."))
    end = start + len(kept) - 1
    view = TextView("", start, end, total, cut, enc)
    body = note + _numbered(kept, start)
    if view.partial:
        more = f"; read more with offset={end + 1}" if end < total else ""
        body = f"[{shown}: lines {start}-{end} of {total}{more}]\n{body}"
    return replace(view, text=body)


def read_file_text(
    env: ToolEnv, path: str | Path, offset: int | None = None, limit: int | None = None,
    *, confined: bool = True,
) -> str:
    """Format a file the way the read_file tool shows it, and record the read in env.read_state.

    `confined` (the default, and always for the model's own calls) refuses a path that resolves
    outside the working directory and granted dirs, or under a deny rule, before anything is
    looked at — not even whether it exists is told. `@path` mentions are confined too (a piped log
    could name any path); `confined=False` is for callers that checked the path themselves.
    """
    p = resolve_path(env.cwd, path)
    if confined and (refusal := env.permissions.read_refusal(p)):
        return NotRun(refusal)
    shown = _shown(env, p)
    if p.is_dir():
        return _directory_refusal(env, p)
    if not p.exists():
        return _not_found(env, p)
    if not p.is_file():
        return ToolFailure(f"{shown} is not a regular file; not shown.")
    mtime = p.stat().st_mtime_ns
    view = view_text(env.settings, p, shown, offset, limit)
    if view.total == 0 and not isinstance(view.text, ToolFailure):
        env.read_state.record(p, mtime)
    elif view.total:
        env.read_state.record(p, mtime, view.partial, offset=offset, limit=limit)
    return view.text
