"""Unreadable lines inside a session file, set aside once instead of warned about on every open.

A line that is no entry (a hand edit gone wrong, a disk that garbled a block, bytes of another
program, valid JSON whose message is none) in the middle of a session file was skipped by every load, and every `-c` said so again.
When a run opens the session (holding its lock), such lines are now copied, fsynced, into the
session's `set-aside/` folder (`unreadable-lines-<time>.bin`, one line each, as they were), and
the session file is rewritten without them (temp file, fsync, rename): the load that did it says
where they are, in one line, and the next open is silent. Nothing else changes: blank lines, lines
of a kind unknown or of a newer version, duplicated lines stay as they were, byte for byte. A last
line without its newline is a torn one, journal.py's to set aside. A file of which no line is an
entry is not rewritten (not_a_session.py).
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from ..words import plural
from .files import _fsync_dir
from .journal import set_aside_path
from .lines import MAX_LINE_BYTES, parsed
from .loading import newer, readable
from .not_a_session import refuse_if_not_a_session

_CHUNK = 1 << 20


def lines_of(fd: int, cap: int) -> Iterator[tuple[int, int, bytes | None]]:
    """(start, end after its newline, its bytes, or None when over `cap`) of each line of the
    file that ends with a newline; read in chunks, a long line never held whole."""
    pos = start = 0
    head: bytearray | None = bytearray()
    while chunk := os.pread(fd, _CHUNK, pos):
        at = 0
        while (nl := chunk.find(b"\n", at)) >= 0:
            if head is not None:
                head += chunk[at:nl]
            yield start, pos + nl + 1, (bytes(head) if head is not None and len(head) <= cap else None)
            start, head, at = pos + nl + 1, bytearray(), nl + 1
        if head is not None:
            head += chunk[at:]
            if len(head) > cap:
                head = None
        pos += len(chunk)


def is_unreadable(line: bytes | None) -> bool:
    """Whether a load skips `line` as unreadable (lines.py's `_parse_lines`, loading.py's `readable`)."""
    if line is None:
        return True
    if not line.strip():
        return False
    try:
        entry, _ = parsed(line)  # a number too long to read is kept as its digits, as a load keeps it
    except (ValueError, UnicodeDecodeError, RecursionError):
        return True
    # valid JSON that holds no entry the load reads (a message that is no message) is as unreadable;
    # a newer version's line stays, whatever this one makes of it
    return not isinstance(entry, dict) or not readable(entry) and not newer(entry)


def _copy(fd: int, ranges: list[tuple[int, int]], dest: Path) -> None:
    """Write the bytes of `ranges` of the file open as `fd` to `dest`: a temp file beside it,
    fsynced and renamed over it, the folder fsynced. Raises OSError; `dest` is then as it was."""
    tmp = dest.with_name(f".{dest.name}.{uuid.uuid4().hex[:8]}.tmp")
    out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    try:
        try:
            for start, end in ranges:
                while start < end:
                    data = os.pread(fd, min(_CHUNK, end - start), start)
                    if not data:
                        break
                    view = memoryview(data)
                    while view:
                        view = view[os.write(out, view):]
                    start += len(data)
            os.fsync(out)
        finally:
            os.close(out)
        os.replace(tmp, dest)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    _fsync_dir(dest.parent)


def set_aside_unreadable(path: Path, side_dir: Path, stamp: datetime | None = None,
                         cap: int = MAX_LINE_BYTES) -> str | None:
    """Move the unreadable lines of the session file at `path` into `<side_dir>/set-aside/` and
    rewrite the file without them; the one line that says so, None when there were none. Called
    holding the session's lock. Raises OSError (nothing is rewritten then) and NotASessionFile."""
    if not path.exists():
        return None
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        refuse_if_not_a_session(path, fd)
        bad: list[tuple[int, int]] = []
        good: list[tuple[int, int]] = []
        entries = 0
        for start, end, line in lines_of(fd, cap):
            if is_unreadable(line):
                bad.append((start, end))
            else:
                entries += line is not None and bool(line.strip())
                if good and good[-1][1] == start:
                    good[-1] = (good[-1][0], end)
                else:
                    good.append((start, end))
        if not bad or not entries:  # nothing to set aside, or no line of it is one to keep
            return None
        size = os.fstat(fd).st_size
        last = max(end for _, end in bad + good)
        if last < size:  # a last line without its newline stays: journal.py sets it aside if torn
            good.append((last, size))
        kept = set_aside_path(side_dir, "unreadable-lines", stamp)
        _copy(fd, bad, kept)  # kept first: a crash before the rewrite leaves them in both
        _copy(fd, good, path)
    finally:
        os.close(fd)
    count, held = len(bad), sum(end - start for start, end in bad)
    return (f"{plural(count, 'unreadable line')} of {path.name} ({plural(held, 'byte')}) "
            f"{'was' if count == 1 else 'were'} taken out of it and kept in {kept}")
