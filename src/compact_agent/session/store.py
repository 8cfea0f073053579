"""Session files: append-only JSONL, archived before any rewrite, rewritten atomically.

One entry per line: `{"v": 1, "id", "parent", "time", "kind", ...}` where kind is `message`
(with the message serialised by pydantic-ai's `ModelMessagesTypeAdapter`), `boundary` (a
compaction: trigger, strategy, tokens before/after, archive path) or `meta`. Appends are fsynced;
a rewrite goes to a temp file that is fsynced and renamed, and only after the full transcript was
copied to `compact-history/`. Unknown or corrupt lines are skipped with a warning, so a crash in
the middle of a line leaves a session that still loads.

A lock file stops a second process from interleaving writes into the same session.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter

FORMAT_VERSION = 1


class SessionError(RuntimeError):
    """A session problem the user can act on (locked, unwritable, not found)."""


class SessionLocked(SessionError):
    pass


def project_slug(cwd: Path) -> str:
    """A readable, collision-resistant folder name for a working directory."""
    s = re.sub(r"[^A-Za-z0-9]+", "-", str(cwd.resolve())).strip("-")
    return s[-120:] or "root"


def ensure_private_dir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    with contextlib.suppress(OSError):
        os.chmod(path, 0o700)
    return path


def atomic_write(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Write to a temp file beside `path`, fsync it, then rename over `path`."""
    ensure_private_dir(path.parent)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    _fsync_dir(path.parent)


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def now_iso() -> str:
    return datetime.now(UTC).isoformat()


@dataclass
class Boundary:
    trigger: str
    strategy: str
    tokens_before: int
    tokens_after: int
    archive: str
    time: str
    messages_summarized: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Loaded:
    messages: list[ModelMessage]
    boundaries: list[Boundary]
    warnings: list[str]
    meta: dict[str, Any]


def _dump_message(m: ModelMessage) -> Any:
    return json.loads(ModelMessagesTypeAdapter.dump_json([m]))[0]


def _load_message(obj: Any) -> ModelMessage:
    return ModelMessagesTypeAdapter.validate_python([obj])[0]


class SessionStore:
    """The persisted truth of one conversation."""

    def __init__(self, root: Path, session_id: str, clock: Callable[[], str] = now_iso) -> None:
        self.root = ensure_private_dir(root)
        self.session_id = session_id
        self.path = root / f"{session_id}.jsonl"
        self.dir = root / session_id  # side files: tool results, notes, collapse log, events
        self._clock = clock
        self._last_id: str | None = None
        self._lock_fd: int | None = None

    # -- paths ---------------------------------------------------------------------------
    @property
    def archive_dir(self) -> Path:
        return self.root / "compact-history"

    @property
    def events_path(self) -> Path:
        return self.dir / "events.jsonl"

    def side_dir(self, name: str) -> Path:
        return ensure_private_dir(self.dir / name)

    # -- locking -------------------------------------------------------------------------
    def lock(self) -> None:
        """Take an exclusive lock; a second process on the same session gets SessionLocked."""
        ensure_private_dir(self.dir)
        fd = os.open(self.dir / "lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise SessionLocked(
                f"session {self.session_id} is in use by another compact-agent process"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._lock_fd = fd

    def unlock(self) -> None:
        if self._lock_fd is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
                os.close(self._lock_fd)
            self._lock_fd = None

    # -- writing -------------------------------------------------------------------------
    def _entry(self, kind: str, **payload: Any) -> dict[str, Any]:
        eid = uuid.uuid4().hex[:12]
        entry = {"v": FORMAT_VERSION, "id": eid, "parent": self._last_id, "time": self._clock(), "kind": kind}
        entry.update(payload)
        self._last_id = eid
        return entry

    def _append_lines(self, entries: Sequence[dict[str, Any]]) -> None:
        if not entries:
            return
        data = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries).encode()
        new = not self.path.exists()
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            # A line torn by an earlier crash must not swallow the next entry.
            if not new and os.fstat(fd).st_size and not self._ends_with_newline():
                data = b"\n" + data
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        if new:
            _fsync_dir(self.root)

    def _ends_with_newline(self) -> bool:
        with open(self.path, "rb") as f:
            f.seek(-1, os.SEEK_END)
            return f.read(1) == b"\n"

    def append(self, messages: Sequence[ModelMessage]) -> None:
        self._append_lines([self._entry("message", message=_dump_message(m)) for m in messages])

    def append_meta(self, **meta: Any) -> None:
        self._append_lines([self._entry("meta", meta=meta)])

    def archive(self, stamp: datetime | None = None) -> Path:
        """Copy the full transcript aside before a compaction rewrites it.

        The copy is fsynced; if it cannot be written the caller must not rewrite the session.
        """
        ensure_private_dir(self.archive_dir)
        ts = (stamp or datetime.now()).strftime("%Y%m%d-%H%M%S")
        dest = self.archive_dir / f"{self.session_id}-{ts}.jsonl"
        n = 1
        while dest.exists():
            n += 1
            dest = self.archive_dir / f"{self.session_id}-{ts}-{n}.jsonl"
        data = self.path.read_bytes() if self.path.exists() else b""
        atomic_write(dest, data)
        return dest

    def rewrite(self, boundary: Boundary | dict[str, Any], messages: Sequence[ModelMessage]) -> None:
        """Replace the session with a boundary entry plus the new history (atomically)."""
        self._last_id = None
        b = boundary if isinstance(boundary, dict) else boundary.__dict__
        entries = [self._entry("boundary", boundary=b)]
        entries += [self._entry("message", message=_dump_message(m)) for m in messages]
        data = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries).encode()
        atomic_write(self.path, data)

    def log_event(self, event: dict[str, Any]) -> None:
        ensure_private_dir(self.dir)
        line = (json.dumps({"time": self._clock(), **event}, ensure_ascii=False, default=str) + "\n").encode()
        fd = os.open(self.events_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)

    # -- reading -------------------------------------------------------------------------
    def load(self) -> Loaded:
        return load_session_file(self.path, on_last_id=self._set_last)

    def _set_last(self, eid: str | None) -> None:
        self._last_id = eid

    def events(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if not self.events_path.exists():
            return out
        for raw in self.events_path.read_bytes().splitlines():
            with contextlib.suppress(ValueError, UnicodeDecodeError):
                obj = json.loads(raw)
                if isinstance(obj, dict):
                    out.append(obj)
        return out


def load_session_file(path: Path, on_last_id: Callable[[str | None], None] | None = None) -> Loaded:
    """Read a session file, skipping what cannot be understood; never raises on bad content."""
    messages: list[ModelMessage] = []
    boundaries: list[Boundary] = []
    warnings: list[str] = []
    meta: dict[str, Any] = {}
    seen: set[str] = set()
    last_id: str | None = None
    if not path.exists():
        return Loaded(messages, boundaries, warnings, meta)
    bad = newer = dup = 0
    for lineno, raw in enumerate(path.read_bytes().splitlines(), 1):
        if not raw.strip():
            continue
        try:
            entry = json.loads(raw)
            if not isinstance(entry, dict):
                raise ValueError("not an object")
        except (ValueError, UnicodeDecodeError):
            bad += 1
            continue
        if isinstance(entry.get("v"), int) and entry["v"] > FORMAT_VERSION:
            newer += 1
        eid = entry.get("id")
        if isinstance(eid, str):
            if eid in seen:
                dup += 1
                continue
            seen.add(eid)
            last_id = eid
        kind = entry.get("kind")
        try:
            if kind == "message":
                messages.append(_load_message(entry["message"]))
            elif kind == "boundary":
                b = entry["boundary"]
                boundaries.append(Boundary(**{k: b[k] for k in Boundary.__dataclass_fields__ if k in b}))
                messages.clear()  # a boundary starts a new history (only the last one matters)
            elif kind == "meta":
                meta.update(entry.get("meta") or {})
            else:
                bad += 1
        except Exception:  # noqa: BLE001 - any unreadable entry is skipped, never fatal
            bad += 1
    if bad:
        warnings.append(f"{path.name}: skipped {bad} unreadable line(s)")
    if dup:
        warnings.append(f"{path.name}: skipped {dup} duplicated line(s)")
    if newer:
        warnings.append(f"{path.name}: {newer} line(s) written by a newer compact-agent; read what was understood")
    if on_last_id:
        on_last_id(last_id)
    return Loaded(messages, boundaries, warnings, meta)


def list_sessions(root: Path) -> list[Path]:
    """Session files of one project, newest first."""
    if not root.exists():
        return []
    files = [p for p in root.glob("*.jsonl") if p.is_file()]
    return sorted(files, key=lambda p: p.stat().st_mtime, reverse=True)


def new_session_id() -> str:
    return datetime.now().strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]
