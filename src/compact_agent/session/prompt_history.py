"""The project's prompt history (`prompt_history` beside its sessions): every line typed at the REPL,
what up-arrow and Ctrl-R bring back (ui/prompt_input.py), and which session each was typed in.

The file keeps prompt_toolkit's format, each entry a comment line and the typed lines after it:

    # 2026-12-04 12:37:53.123456 session=20261204-123753-abc123
    +the line typed

The session's id on the comment line ties the entry to its session, so that removing the session
(`sessions --delete`, removal.py) takes its prompts out of the history too: a secret pasted into it
does not stay behind for up-arrow. An entry an earlier version wrote has no id: it is read as
before, and a removal takes it when it was typed while the session was in use (its time, on the
comment line, within the session's moments: in_use.py), which may be another session's typed at the
same time in the same directory: a secret is not left behind for want of a name. Writes append under an exclusive lock of the file; a removal
rewrites it under the same lock (temp file, fsync, rename), so an entry another REPL appends
meanwhile is not lost: the appender finds the file renamed over and writes to the new one.

A line typed ahead in the REPL while a turn runs is appended here the moment Enter ends it, and
kept in its session's folder until it is sent (`Unsent`): the next run to open the session says
one that never was (`said_unsent`).

A rewrite's temp file (`.prompt_history.<hex>.tmp`) is only made and renamed by the holder of the
lock of the file the name holds: whoever holds that lock knows any such temp there is a killed
removal's, and removes it (`_remove_stale_temps`).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from .files import atomic_write, remove_stale_temps

NAME = "prompt_history"
_TAGGED = re.compile(r"#.* session=(\S+)")
_WHEN = re.compile(rb"# (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?)\s*$")


def header(session_id: str | None, now: datetime) -> str:
    """The comment line that opens an entry (a newline before it, as prompt_toolkit writes it)."""
    return f"\n# {now}" + (f" session={session_id}" if session_id else "") + "\n"


def session_of(line: str) -> str | None:
    """The session an entry's comment line names; None for an entry an earlier version wrote."""
    m = _TAGGED.fullmatch(line.rstrip("\r\n"))
    return m[1] if m else None


def _locked(path: Path, flags: int) -> int:
    """A descriptor of the file at `path` locked exclusively, the one its name holds now (a removal
    may have renamed a new file over the one opened while it waited)."""
    while True:
        fd = os.open(path, flags | os.O_CLOEXEC, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        with contextlib.suppress(FileNotFoundError):  # renamed away meanwhile: open the new one
            if os.stat(path).st_ino == os.fstat(fd).st_ino:
                return fd
        os.close(fd)


def append(path: Path, text: str, session_id: str | None, now: Callable[[], datetime] = datetime.now) -> None:
    """Add `text` (typed in session `session_id`) to the history at `path`. Raises OSError (a
    read-only folder, a full disk); a write or fsync that fails part of the way takes back what it
    wrote, which needs no room: the file keeps its entries whole, none of them torn."""
    data = header(session_id, now()) + "".join(f"+{line}\n" for line in text.split("\n"))
    fd = _locked(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        _remove_stale_temps(path)
        size = os.fstat(fd).st_size  # under the lock: no one else appends meanwhile
        try:
            _write_all(fd, data.encode("utf-8", errors="replace"))
            os.fsync(fd)
        except OSError:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, size)
            raise
    finally:
        os.close(fd)


def _remove_stale_temps(path: Path) -> None:
    """Remove the temp files of rewrites of the history at `path` a kill left: called holding the
    lock of the file its name holds, without which no rewrite makes one or renames it (a rewrite
    that made one holds that lock until it is renamed over the name, or removed)."""
    remove_stale_temps(path.parent, ours=re.compile(rf"\.{re.escape(path.name)}\.[0-9a-f]{{8}}\.tmp").fullmatch)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _split(data: bytes) -> list[tuple[str | None, bytes]]:
    """The file's entries, each (its session, its bytes: from the empty line written before its
    comment line), in order; what comes before the first is one of no session."""
    out: list[tuple[str | None, bytes]] = [(None, b"")]
    for line in data.splitlines(keepends=True):
        if line.startswith(b"#"):
            sid, held = out[-1]
            blank = held.endswith(b"\n\n") or held == b"\n"
            if blank:
                out[-1] = (sid, held[:-1])
            out.append((session_of(line.decode("utf-8", errors="replace")), b"\n" * blank + line))
        else:
            sid, held = out[-1]
            out[-1] = (sid, held + line)
    return out


def typed_at(entry: bytes) -> float | None:
    """When an entry that names no session was typed (its comment line's local time, as a POSIX
    time); None for one without that line or with another."""
    for line in entry.splitlines():
        if line.startswith(b"#"):
            m = _WHEN.fullmatch(line)
            try:
                return datetime.fromisoformat(m[1].decode()).timestamp() if m else None
            except (ValueError, OverflowError, OSError):
                return None
    return None


def drop_session(path: Path, session_id: str, dry: bool = False,
                 typed_while: Callable[[float], bool] | None = None) -> tuple[int, int]:
    """Take every entry of session `session_id` out of the history at `path` (`dry`: count them
    only): (how many, their bytes). An entry that names no session goes too when `typed_while` its
    time (`typed_at`) says so. The other entries stay byte for byte. Raises OSError."""
    if not path.exists() or path.is_symlink():
        return 0, 0
    fd = _locked(path, os.O_RDWR)
    try:
        if not dry:
            _remove_stale_temps(path)
        with os.fdopen(os.dup(fd), "rb") as f:
            entries = _split(f.read())
        def goes(sid: str | None, held: bytes) -> bool:
            if sid is not None or typed_while is None:
                return sid == session_id
            return (when := typed_at(held)) is not None and typed_while(when)

        gone = [held for sid, held in entries if goes(sid, held)]
        if not gone or dry:
            return len(gone), sum(map(len, gone))
        atomic_write(path, b"".join(held for sid, held in entries if not goes(sid, held)))  # under the lock
        return len(gone), sum(map(len, gone))
    finally:
        os.close(fd)


class Unsent:
    """The lines typed ahead with Enter and not yet taken to be sent, kept in the folder of the
    session each was typed in (`folder`, asked at each line: /clear and /resume change it), as
    `NAME`, fsynced at each change: a run that ends before it sends them leaves them there, and
    `take_left` gives them to the next run that opens the session (the REPL, `-c -p`), once."""

    NAME = "typed-ahead.json"

    def __init__(self, folder: Callable[[], Path | None], left: list[str] | None = None) -> None:
        self.folder = folder
        self.left = left or []  # what an earlier run of the session kept and never sent
        self._kept: list[tuple[Path, str, str]] = []  # (folder, the line as typed ahead, its text)

    def add(self, line: str, text: str) -> None:
        """`line` typed ahead (a paste in it as its placeholder), `text` what it says."""
        if (folder := self.folder()) is not None:
            self._kept.append((folder, line, text))
            self._write(folder)

    def drop(self, line: str) -> None:
        for i, (folder, kept, _) in enumerate(self._kept):
            if kept == line:
                del self._kept[i]
                self._write(folder)
                return

    def _write(self, folder: Path) -> None:
        lines = [text for where, _, text in self._kept if where == folder]
        with contextlib.suppress(OSError):  # the up-arrow history has it all the same
            if lines:
                atomic_write(folder / self.NAME, json.dumps(lines, ensure_ascii=False).encode())
            else:
                (folder / self.NAME).unlink(missing_ok=True)

    @classmethod
    def take_left(cls, folder: Path) -> list[str]:
        """The lines an earlier run of the session in `folder` kept and never sent, the record gone."""
        try:
            lines = json.loads((folder / cls.NAME).read_text(encoding="utf-8"))
            (folder / cls.NAME).unlink()
        except (OSError, ValueError, RecursionError):
            return []
        return [line for line in lines if isinstance(line, str)] if isinstance(lines, list) else []


def said_unsent(left: list[str], width: int = 100) -> list[str]:
    """What a resume says of the lines typed ahead in an earlier run and never sent (`Unsent.take_left`):
    each by its first line, cut to `width`, then that up-arrow recalls them."""
    def first(line: str) -> str:
        head = line.strip().split("\n", 1)[0]
        return head if len(head) <= width and "\n" not in line.strip() else head[: width - 1] + "…"

    said = [f"typed ahead in the last run and never sent: “{first(line)}”" for line in left]
    return [*said, f"(up-arrow recalls {'it' if len(left) == 1 else 'them'})"] if left else []
