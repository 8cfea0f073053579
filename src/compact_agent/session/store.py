"""Session files: append-only JSONL, archived before any rewrite, rewritten atomically.

One entry per line: `{"v": 1, "id", "parent", "time", "kind", ...}` where kind is `message`
(with the message serialised by pydantic-ai's `ModelMessagesTypeAdapter`), `boundary` (a
compaction: trigger, strategy, tokens before/after, archive path) or `meta`. Appends are fsynced;
a rewrite goes to a temp file that is fsynced and renamed, and only after the full transcript was
copied to `compact-history/`. So at every instant — a SIGKILL included — each message ever saved
is in the session file or in an archive, and the session file is either the old or the new one.

Loading never fails on content. Torn, binary, duplicated or unknown lines are skipped, lines out of
order are put back in the order their parent ids say, lines from a newer format are read as far as
they are understood, and a history that would not be a valid provider conversation (a tool call
whose result was lost in a crash) is repaired the way pydantic-ai repairs it. Each kind of problem
becomes one warning.

A lock file stops a second process from interleaving writes into the same session. Write failures
(a full disk, a read-only folder) raise `SessionWriteError`, one line naming the file; nothing that
was saved before is touched by a failed write.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import json
import os
import re
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelResponse,
    RetryPromptPart,
    ToolCallPart,
    ToolReturnPart,
    repair_messages,
)

from .. import crashpoints, secrets
from ..context.plumbing.rounds import call_ids, return_ids

FORMAT_VERSION = 1


class SessionError(RuntimeError):
    """A session problem the user can act on (locked, unwritable, not found)."""


class SessionLocked(SessionError):
    pass


class SessionWriteError(SessionError, OSError):
    """A session, archive or side file could not be written (disk full, permission denied).

    Also an `OSError`, so code that guards a write with `except OSError` (the compactor refusing to
    rewrite after a failed archive) keeps working; the message is one line that names the file.
    """

    def __str__(self) -> str:  # OSError would print "[Errno N] ..." and drop the file and the advice
        return str(self.args[0]) if self.args else super().__str__()


def _write_error(what: str, path: Path, e: OSError) -> SessionWriteError:
    err = SessionWriteError(f"could not write {what} {path}: {e.strerror or e}; what was saved before is intact")
    err.errno = e.errno
    err.strerror = e.strerror
    return err


def project_slug(cwd: Path) -> str:
    """A readable, collision-resistant folder name for a working directory."""
    s = re.sub(r"[^A-Za-z0-9]+", "-", str(cwd.resolve())).strip("-")
    return s[-120:] or "root"


def ensure_private_dir(path: Path) -> Path:
    """`path` as a 0700 folder; every parent it has to create is 0700 too (`mkdir(parents=True)`
    would make those 0755 under the usual umask, and then anyone could list the project paths)."""
    missing: list[Path] = []
    p = path
    while not p.exists() and p != p.parent:
        missing.append(p)
        p = p.parent
    for d in reversed(missing):
        with contextlib.suppress(FileExistsError):
            d.mkdir(mode=0o700)
        with contextlib.suppress(OSError):
            os.chmod(d, 0o700)
    path.mkdir(exist_ok=True, mode=0o700)
    with contextlib.suppress(OSError):
        os.chmod(path, 0o700)
    return path


def ensure_private_file(path: Path) -> Path:
    """`path` exists and is 0600 (for files written by others' code, like the prompt history)."""
    ensure_private_dir(path.parent)
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))
    with contextlib.suppress(OSError):
        os.chmod(path, 0o600)
    return path


def atomic_write(path: Path, data: bytes, mode: int = 0o600, point: str = "write") -> None:
    """Write to a temp file beside `path`, fsync it, then rename over `path`.

    A reader, or the next process after a crash, sees the old file or the new one, never half of
    one; a crash can only leave a `.<name>.<hex>.tmp` behind, which `SessionStore.lock` removes.
    `point` names the crash points (`<point>.partial/.synced/.renamed`, see `crashpoints`).
    """
    ensure_private_dir(path.parent)
    data = secrets.redact_bytes(data)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        try:
            crashpoints.write_in_two(fd, data, point)
            os.fsync(fd)
        finally:
            os.close(fd)
        crashpoints.hit(f"{point}.synced")
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    crashpoints.hit(f"{point}.renamed")
    _fsync_dir(path.parent)


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def remove_stale_temps(folder: Path, prefix: str = ".") -> int:
    """Delete `<prefix>*.tmp` files a killed writer left in `folder`; returns how many.

    Only safe while no other process writes there with that prefix: the session lock guarantees it
    for the session's own files.
    """
    n = 0
    with contextlib.suppress(OSError):
        for p in folder.iterdir():
            if p.name.startswith(prefix) and p.name.endswith(".tmp") and p.is_file():
                with contextlib.suppress(OSError):
                    p.unlink()
                    n += 1
    return n


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

    @classmethod
    def from_json(cls, b: Any) -> Boundary:
        """Lenient: a field of the wrong type gets its default instead of failing the line."""
        if not isinstance(b, dict):
            raise ValueError("boundary is not an object")

        def num(v: Any) -> int:
            return v if isinstance(v, int) and not isinstance(v, bool) else 0

        extra = b.get("extra")
        return cls(trigger=str(b.get("trigger", "")), strategy=str(b.get("strategy", "")),
                   tokens_before=num(b.get("tokens_before")), tokens_after=num(b.get("tokens_after")),
                   archive=str(b.get("archive", "") or ""), time=str(b.get("time", "")),
                   messages_summarized=num(b.get("messages_summarized")),
                   extra=extra if isinstance(extra, dict) else {})


@dataclass
class Loaded:
    messages: list[ModelMessage]
    boundaries: list[Boundary]
    warnings: list[str]
    meta: dict[str, Any]


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def utf8_safe(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD.

    JSON may escape one (`"\\ud800"`) and a provider may send one, and Python strings hold it,
    but UTF-8 cannot: left in, it fails every later write and request. The rest is kept as is.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _LONE_SURROGATE.sub("\ufffd", text)
    return text


def _dump_message(m: ModelMessage) -> Any:
    try:
        return json.loads(ModelMessagesTypeAdapter.dump_json([m]))[0]
    except (ValueError, UnicodeError):  # a lone surrogate in a reply: save it with U+FFFD, never lose it
        obj = ModelMessagesTypeAdapter.dump_python([m], mode="json")[0]
        return json.loads(utf8_safe(json.dumps(obj, ensure_ascii=False)))


def _load_message(obj: Any) -> ModelMessage:
    return ModelMessagesTypeAdapter.validate_python([obj])[0]


def _lines(entries: Iterable[dict[str, Any]]) -> bytes:
    return utf8_safe(secrets.redact("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries))).encode()


def _heal_tail(fd: int, size: int) -> bytes:
    """Deal with a last line that has no newline before appending after it.

    A line torn by a crash (or a failed write) is cut off — it was never a saved entry, and left in
    place it would warn on every load forever; a complete entry that only lacks its newline (a
    hand-edited file) is kept and gets one. Returns the bytes to write before the new entries.
    """
    start = size
    while start > 0:
        chunk_start = max(0, start - 65_536)
        chunk = os.pread(fd, start - chunk_start, chunk_start)
        nl = chunk.rfind(b"\n")
        if nl >= 0:
            start = chunk_start + nl + 1
            break
        start = chunk_start
    tail = os.pread(fd, size - start, start)
    try:
        json.loads(tail)
        return b"\n"
    except (ValueError, UnicodeDecodeError, RecursionError):
        os.ftruncate(fd, start)
        return b""


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
        """Take an exclusive lock; a second process on the same session gets SessionLocked.

        Holding it, no one else writes this session's files, so temp files a killed process left
        behind (ours only: other sessions share the project folder) are removed here.
        """
        try:
            ensure_private_dir(self.dir)
            fd = os.open(self.dir / "lock", os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as e:
            raise SessionError(f"cannot open session {self.session_id} in {self.root}: {e.strerror or e}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise SessionLocked(
                f"session {self.session_id} is in use by another compact-agent process"
                " (wait for it to finish, or start a new session without --continue/--resume)"
            ) from None
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.write(fd, str(os.getpid()).encode())
        self._lock_fd = fd
        self.clean_stale_temps()

    def unlock(self) -> None:
        if self._lock_fd is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
                os.close(self._lock_fd)
            self._lock_fd = None

    def clean_stale_temps(self) -> int:
        """Remove temp files of this session left by a crash: they are never read, only clutter."""
        n = remove_stale_temps(self.root, f".{self.path.name}.")
        n += remove_stale_temps(self.archive_dir, f".{self.session_id}-")
        if self.dir.is_dir():
            for folder, _dirs, _files in os.walk(self.dir):
                n += remove_stale_temps(Path(folder))
        return n

    # -- writing -------------------------------------------------------------------------
    def _entries(self, kind_payloads: Sequence[tuple[str, dict[str, Any]]], parent: str | None
                 ) -> list[dict[str, Any]]:
        """New entries chained by parent id; `_last_id` only moves once they are on disk."""
        out: list[dict[str, Any]] = []
        for kind, payload in kind_payloads:
            eid = uuid.uuid4().hex[:12]
            out.append({"v": FORMAT_VERSION, "id": eid, "parent": parent, "time": self._clock(), "kind": kind,
                        **payload})
            parent = eid
        return out

    def _append_lines(self, entries: Sequence[dict[str, Any]]) -> None:
        if not entries:
            return
        data = _lines(entries)
        try:
            new = not self.path.exists()
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
            try:
                size = os.fstat(fd).st_size
                if size and os.pread(fd, 1, size - 1) != b"\n":
                    data = _heal_tail(fd, size) + data
                crashpoints.write_in_two(fd, data, "append")
                os.fsync(fd)
            finally:
                os.close(fd)
            if new:
                _fsync_dir(self.root)
        except OSError as e:
            # Part of the batch may be on disk; the next entry names no parent rather than a wrong one.
            self._last_id = None
            raise _write_error("the session file", self.path, e) from e
        crashpoints.hit("append.done")
        self._last_id = entries[-1]["id"]

    def append(self, messages: Sequence[ModelMessage]) -> None:
        self._append_lines(self._entries([("message", {"message": _dump_message(m)}) for m in messages],
                                         self._last_id))

    def append_meta(self, **meta: Any) -> None:
        self._append_lines(self._entries([("meta", {"meta": meta})], self._last_id))

    def archive(self, stamp: datetime | None = None) -> Path:
        """Copy the full transcript aside before a compaction rewrites it.

        The copy is fsynced and never overwrites an earlier archive; if it cannot be written this
        raises (an OSError) and the caller must not rewrite the session.
        """
        ts = (stamp or datetime.now()).strftime("%Y%m%d-%H%M%S")
        try:
            ensure_private_dir(self.archive_dir)
            dest = self.archive_dir / f"{self.session_id}-{ts}.jsonl"
            n = 1
            while dest.exists():
                n += 1
                dest = self.archive_dir / f"{self.session_id}-{ts}-{n}.jsonl"
            data = self.path.read_bytes() if self.path.exists() else b""
            atomic_write(dest, data, point="archive")
        except OSError as e:  # the compactor says the rest: "could not archive …; not rewritten"
            err = SessionWriteError(f"{e.strerror or e} writing {self.archive_dir}")
            err.errno = e.errno
            raise err from e
        return dest

    def rewrite(self, boundary: Boundary | dict[str, Any], messages: Sequence[ModelMessage]) -> None:
        """Replace the session with a boundary entry plus the new history (atomically).

        Callers archive first (see `archive`); on failure the old file stays as it was.
        """
        b = boundary if isinstance(boundary, dict) else boundary.__dict__
        entries = self._entries([("boundary", {"boundary": b}),
                                 *(("message", {"message": _dump_message(m)}) for m in messages)], None)
        try:
            atomic_write(self.path, _lines(entries), point="rewrite")
        except OSError as e:
            raise _write_error("the session file", self.path, e) from e
        self._last_id = entries[-1]["id"]

    def log_event(self, event: dict[str, Any]) -> None:
        ensure_private_dir(self.dir)
        line = utf8_safe(secrets.redact(json.dumps({"time": self._clock(), **event}, ensure_ascii=False,
                                                   default=str) + "\n")).encode()
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
        for raw in _file_lines(self.events_path):
            if raw is None:
                continue
            with contextlib.suppress(ValueError, UnicodeDecodeError, RecursionError):
                obj = json.loads(raw)
                if isinstance(obj, dict):
                    out.append(obj)
        return out


#: The longest line a session file may hold. Real ones stay far below (a tool result is capped
#: before it is saved); a longer one is junk, skipped without ever being held whole in memory.
MAX_LINE_BYTES = 64 * 1024 * 1024
_CHUNK = 1 << 20


def _file_lines(path: Path, cap: int | None = None) -> Iterator[bytes | None]:
    """The lines of `path` (without newlines), read in chunks; a line over `cap` bytes is
    dropped while it is read and yields None. Memory stays at about `cap`, whatever the file."""
    cap = MAX_LINE_BYTES if cap is None else cap
    buf = bytearray()
    skipping = False
    with path.open("rb") as f:
        while chunk := f.read(_CHUNK):
            start = 0
            while (nl := chunk.find(b"\n", start)) >= 0:
                if skipping:
                    skipping = False
                    yield None
                else:
                    buf += chunk[start:nl]
                    yield bytes(buf)
                buf.clear()
                start = nl + 1
            if not skipping:
                buf += chunk[start:]
                if len(buf) > cap:
                    buf.clear()
                    skipping = True
    if skipping:
        yield None
    elif buf:
        yield bytes(buf)


def _parse_lines(lines: Iterable[bytes | None]) -> tuple[list[dict[str, Any]], int, int]:
    """JSON objects of the file's lines, how many lines were not one (None: over the size cap),
    and how many held a lone surrogate escape (replaced by U+FFFD: see `utf8_safe`)."""
    entries: list[dict[str, Any]] = []
    bad = fixed = 0
    for line in lines:
        if line is None:
            bad += 1
            continue
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            if _SURROGATE_ESCAPE.search(line):  # rare: only then pay for the check
                text = json.dumps(entry, ensure_ascii=False)
                if (safe := utf8_safe(text)) is not text:
                    entry = json.loads(safe)
                    fixed += 1
        except (ValueError, UnicodeDecodeError, RecursionError):
            bad += 1
            continue
        if isinstance(entry, dict):
            entries.append(entry)
        else:
            bad += 1
    return entries, bad, fixed


def _in_parent_order(entries: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """File order, except that an entry whose parent comes later in the file follows its parent.

    Appends always write a parent before its child, so this only changes a file whose lines were
    moved around; a stable topological order keeps everything else where it was. Returns the
    entries and how many were moved.
    """
    ids = {e["id"] for e in entries if isinstance(e.get("id"), str)}
    placed: set[str] = set()
    waiting: dict[str, list[dict[str, Any]]] = {}
    out: list[dict[str, Any]] = []
    moved = 0
    for entry in entries:
        parent = entry.get("parent")
        if isinstance(parent, str) and parent in ids and parent not in placed and parent != entry.get("id"):
            waiting.setdefault(parent, []).append(entry)
            moved += 1
            continue
        stack = [entry]
        while stack:
            e = stack.pop()
            out.append(e)
            eid = e.get("id")
            if isinstance(eid, str):
                placed.add(eid)
                stack.extend(reversed(waiting.pop(eid, [])))
    for rest in waiting.values():  # a cycle of parents: keep the file's order
        out.extend(rest)
    return out, moved


def load_session_file(path: Path, on_last_id: Callable[[str | None], None] | None = None) -> Loaded:
    """Read a session file, skipping what cannot be understood; never raises on bad content."""
    messages: list[ModelMessage] = []
    boundaries: list[Boundary] = []
    meta: dict[str, Any] = {}
    if not path.exists():
        return Loaded(messages, boundaries, [], meta)
    entries, bad, fixed = _parse_lines(_file_lines(path))
    entries, moved = _in_parent_order(entries)
    seen: set[str] = set()
    last_id: str | None = None
    newer = dup = unknown = 0
    for entry in entries:
        v = entry.get("v")
        if isinstance(v, int) and not isinstance(v, bool) and v > FORMAT_VERSION:
            newer += 1
        eid = entry.get("id")
        if isinstance(eid, str):
            if eid in seen:
                dup += 1
                continue
            seen.add(eid)
        kind = entry.get("kind")
        try:
            if kind == "message":
                messages.append(_load_message(entry["message"]))
            elif kind == "boundary":
                boundaries.append(Boundary.from_json(entry["boundary"]))
                messages.clear()  # a boundary starts a new history (only the last one matters)
            elif kind == "meta":
                m = entry.get("meta")
                if not isinstance(m, dict):
                    raise ValueError("meta is not an object")
                meta.update(m)
            else:
                unknown += 1
                continue
        except Exception:  # noqa: BLE001 - any unreadable entry is skipped, never fatal
            bad += 1
            continue
        if isinstance(eid, str):
            last_id = eid
    messages, repaired = _runnable(messages)
    problems = []
    if bad:
        problems.append(f"skipped {bad} unreadable line(s)")
    if fixed:
        problems.append(f"replaced invalid characters (lone surrogates) in {fixed} line(s) with U+FFFD")
    if dup:
        problems.append(f"skipped {dup} duplicated line(s)")
    if unknown:
        problems.append(f"skipped {unknown} line(s) of an unknown kind")
    if moved:
        problems.append(f"put {moved} out-of-order line(s) back in order")
    if newer:
        problems.append(f"{newer} line(s) were written by a newer compact-agent (read what was understood)")
    if repaired:
        problems.append(repaired)
    warnings = [f"{path.name}: " + "; ".join(problems)] if problems else []
    if on_last_id:
        on_last_id(last_id)
    return Loaded(messages, boundaries, warnings, meta)


def _runnable(messages: list[ModelMessage]) -> tuple[list[ModelMessage], str]:
    """The history as a provider accepts it, and what was changed ('' when nothing).

    A crash between saving a tool call and its result, or a hand-edited file, leaves calls without
    results or results without calls; the next request would be rejected (and `Agent.run` refuses a
    history ending in unanswered calls). Results that answer no call open at their place are
    dropped, then pydantic-ai's own repair (deterministic, idempotent) closes calls left open
    with a synthesized result and merges what became adjacent. A history whose pairs are intact
    is returned untouched — two user prompts in a row after a failed turn are normal — so the
    prompt-cache prefix does not change on reload.
    """
    if not messages or not _broken_pairs(messages):
        return messages, ""
    note = "closed tool calls whose results were lost (a crash or an edit); the conversation goes on"
    try:
        fixed = repair_messages(_drop_misplaced_results(messages))
    except Exception:  # noqa: BLE001 - fall back to the longest intact beginning below
        fixed = messages
    if not _broken_pairs(fixed):
        return fixed, note
    keep = len(fixed)
    while keep and _broken_pairs(fixed[:keep]):
        keep -= 1
    return fixed[:keep], f"dropped {len(fixed) - keep} message(s) after a tool call/result mix-up"


def _drop_misplaced_results(messages: Sequence[ModelMessage]) -> list[ModelMessage]:
    """Without tool results that answer no call open at their place (orphans, or moved before
    their call); requests left empty go too."""
    out: list[ModelMessage] = []
    open_calls: set[str] = set()
    for m in messages:
        if isinstance(m, ModelResponse):
            open_calls = {p.tool_call_id for p in m.parts if isinstance(p, ToolCallPart)}
            if m.parts:
                out.append(m)
            continue
        parts = []
        for p in m.parts:
            if isinstance(p, ToolReturnPart) or (isinstance(p, RetryPromptPart) and p.tool_name):
                if p.tool_call_id not in open_calls:
                    continue
                open_calls.discard(p.tool_call_id)
            parts.append(p)
        if parts:
            out.append(dataclasses.replace(m, parts=parts) if len(parts) != len(m.parts) else m)
    return out


def _broken_pairs(messages: Sequence[ModelMessage]) -> bool:
    """True if a tool call is not answered before the next response, or a result answers no open call."""
    open_calls: set[str] = set()
    for m in messages:
        if not m.parts:
            return True
        if isinstance(m, ModelResponse):
            if open_calls:
                return True
            open_calls = set(call_ids(m))
            continue
        for cid in return_ids(m):
            if cid not in open_calls:
                return True
            open_calls.discard(cid)
    return bool(open_calls)


def list_sessions(root: Path) -> list[Path]:
    """Session files of one project, newest first."""
    if not root.exists():
        return []
    stamped: list[tuple[float, Path]] = []
    for p in root.glob("*.jsonl"):
        with contextlib.suppress(OSError):
            if p.is_file() and not p.name.startswith("."):
                stamped.append((p.stat().st_mtime, p))
    return [p for _, p in sorted(stamped, key=lambda t: t[0], reverse=True)]


def new_session_id() -> str:
    return datetime.now().strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]
