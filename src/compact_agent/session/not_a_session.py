"""A file under a session's name that is no session is never written to.

Random bytes, another program's JSON lines, a file copied there by mistake: `-c` used to go on
with it, cut its last line off into `set-aside/` as a "torn line" and append the new conversation
to the rest. What it held is not ours to change. Opening it is refused in one line instead, before
anything is written (its lock, its side folder, an early prompt), and every write that reaches it
anyway is refused the same way.

A file is a session's when a line of it is an entry, or begins as one (a crash may tear any line,
the first too); a missing, empty or blank file has nothing to lose. Every entry this program writes
begins `{"v": `, so a session's first bytes answer at once; only a file that is no session is read
to its end.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from .files import SessionError

#: How every entry begins (journal.py writes `v` first): a session's first bytes.
ENTRY_START = b'{"v": '

#: The bytes of a line read to tell whether it is an entry written some other way: a longer one is
#: not such an entry unless it begins as ours.
LINE_CAP = 1 << 20


class NotASessionFile(SessionError):
    """The file under a session's name is no session: it was left as it is."""


def refusal(session_id: str, path: Path) -> str:
    """The one line that says why session `session_id` is not opened."""
    return (f"session {session_id} cannot be opened: {path} is not a session file (no line of it is a session "
            "entry); it is left as it is (compact-agent sessions lists the sessions)")


def is_not_a_session(path: Path) -> bool:
    """Whether the file at `path` holds lines and none of them is, or begins as, a session's entry.
    A missing or unreadable file, or a folder, is not said to be one here: opening it says why."""
    try:
        with path.open("rb") as f:
            if f.read(len(ENTRY_START)) == ENTRY_START:
                return False
            f.seek(0)
            lines = False
            for line in _line_starts(f):
                text = line.strip()
                if not text:
                    continue
                if text.startswith(ENTRY_START) or _an_entry(text):
                    return False
                lines = True
            return lines
    except OSError:
        return False


def newest_session(found: list[Path]) -> tuple[Path | None, int]:
    """The first of `found` (newest first, `files.list_sessions`) that is a session, and how many
    newer files it passed over that are not (another program's, left as they are): `-c` goes on
    with the newest session, not stops at a stray file. (None, n) when none of them is one."""
    for passed, path in enumerate(found):
        if not is_not_a_session(path):
            return path, passed
    return None, len(found)


def refuse_if_not_a_session(path: Path, fd: int | None = None) -> None:
    """Raise NotASessionFile when the file at `path` (open as `fd`, if it is) is no session. A
    session's first bytes (or none) answer without reading further: this stands before every write."""
    if fd is not None and os.pread(fd, len(ENTRY_START), 0) in (ENTRY_START, b""):
        return
    if is_not_a_session(path):
        raise NotASessionFile(refusal(path.stem, path))


def _line_starts(f: BinaryIO, cap: int = LINE_CAP) -> Iterator[bytes]:
    """The first `cap` bytes of each line of `f`, read in chunks: a line of junk without a newline,
    however long, is never held whole (loading.py reads lines the same way)."""
    head = bytearray()
    while chunk := f.read(65_536):
        start = 0
        while (nl := chunk.find(b"\n", start)) >= 0:
            head += chunk[start:nl][:cap - len(head)]
            yield bytes(head)
            head.clear()
            start = nl + 1
        head += chunk[start:][:cap - len(head)]
    if head:
        yield bytes(head)


def _an_entry(line: bytes) -> bool:
    """A whole entry written some other way (`{"v":1,...}` without the spaces: edited by hand)."""
    try:
        obj = json.loads(line)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return False
    return isinstance(obj, dict) and "v" in obj and "kind" in obj
