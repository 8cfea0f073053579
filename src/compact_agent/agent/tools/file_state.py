"""Which files the model has seen, and when: the guard that makes edits safe.

An edit is a string replacement against what the model *thinks* the file says. If the model never
read the file, or the file changed on disk since (the user saved in an editor, a formatter ran), the
replacement may silently do the wrong thing, so `edit_file` and overwriting `write_file` demand a
current read. The read order also tells compaction which files were most recently in view, so they
can be restored after a summary. The state is persisted with the session so a resumed session
keeps both guarantees.

`atomic_write_bytes` lives here because every file our tools and checkpoints write goes through it:
a crash or a full disk leaves the old file, never half a new one.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import secrets
import stat
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from pydantic_ai.messages import ModelMessage

from ...context.compaction.ledger import reads
from ...regular_file import open_regular, read_own
from ...session.store import atomic_write
from ..safety.checked_open import open_folder, swapped, where_opened
from . import temp_files

T = TypeVar("T")


@dataclass(frozen=True)
class FileRead:
    """One recorded read: the file's version then (mtime, size, SHA-256 up to `DIGEST_BYTES`), which
    slice of it the model saw, and whether it saw parts of two versions (`mixed`, see `record`)."""

    path: Path
    mtime_ns: int
    partial: bool = False
    offset: int | None = None
    limit: int | None = None
    time: float = 0.0
    size: int | None = None
    digest: str | None = None
    mixed: bool = False

    def same_version(self, other: FileRead) -> bool:
        """Whether the two reads saw one version of the file (what either does not know is not compared)."""
        return (self.mtime_ns == other.mtime_ns
                and (self.size is None or other.size is None or self.size == other.size)
                and (self.digest is None or other.digest is None or self.digest == other.digest))


def _key(path: Path | str) -> Path:
    # The tools pass resolved paths already; resolving again makes lookups from other modules
    # (restore, UI) agree with them even when they hold a relative or symlinked spelling.
    try:
        return Path(path).expanduser().resolve()
    except (OSError, RuntimeError, ValueError):  # a folder since replaced by a link to itself: the path as given
        return Path(path)


def read_paths_in_view(messages: list[ModelMessage]) -> list[str]:
    """Paths the model has a read_file result of in these messages (each call is paired with its
    result), not a read whose result says it failed: an offset past the end kept after a compaction
    held none of the file, and edit_file trusted the read the compaction had summarised away."""
    return [path for call, path in reads(messages, done=True) if call.tool_name == "read_file"]


class ReadFileState:
    """Files read in this session, oldest read first, with the mtime each read saw."""

    def __init__(self) -> None:
        self._reads: dict[Path, FileRead] = {}
        self.summarised: set[Path] = set()  # read, then taken out of view by a compaction (`forget`)

    def record(
        self,
        path: Path,
        mtime_ns: int,
        partial: bool = False,
        *,
        offset: int | None = None,
        limit: int | None = None,
        written: bytes | None = None,
    ) -> FileRead:
        """Note a read (or a write of the bytes `written` by our own tools) as the newest entry, with
        the file's size and digest if its mtime is still `mtime_ns`. A part read of another version
        than the read before makes it `mixed`, not current until read again: lines 1-2 read before the
        user changed line 2, lines 3-10 after, and a whole file written from both put line 2 back."""
        key = _key(path)
        before = self._reads.pop(key, None)
        self.summarised.discard(key)
        size, digest = (len(written), hashlib.sha256(written).hexdigest()) if written is not None else _version(key, int(mtime_ns))
        entry = FileRead(key, int(mtime_ns), bool(partial), offset, limit, time.time(), size, digest)
        if written is None and partial and before is not None and not before.same_version(entry):
            entry = replace(entry, mixed=True)
        self._reads[key] = entry
        return entry

    def get(self, path: Path | str) -> FileRead | None:
        return self._reads.get(_key(path))

    def is_current(self, path: Path | str) -> bool:
        """Whether the file was read and holds what the read saw (partial reads count unless `mixed`), as an
        edit asks: by size and digest up to `DIGEST_BYTES` (an mtime put back is no proof; a new one on the
        same bytes, as `touch` leaves, no change: the read takes it), else by mtime and size."""
        entry = self.get(path)
        st = _stat(entry.path) if entry is not None and not entry.mixed else None
        if st is None or entry is None or entry.size not in (None, st.st_size):
            return False
        if entry.digest is None or _digest(entry.path, DIGEST_BYTES) != entry.digest:
            return entry.digest is None and st.st_mtime_ns == entry.mtime_ns
        if st.st_mtime_ns != entry.mtime_ns:  # the same bytes with a new mtime: the checkpoints' test agrees again
            self._reads[entry.path] = replace(entry, mtime_ns=st.st_mtime_ns)
        return True

    def paths(self) -> list[Path]:
        """Read paths from the oldest read to the newest."""
        return list(self._reads)

    def was_summarised(self, path: Path | str) -> bool:
        """Whether `path` was read, and the read is out of view since a compaction (`forget`)."""
        return _key(path) in self.summarised

    def forget(self, path: Path | str, summarised: bool = False) -> None:
        """Forget a read; `summarised`: a compaction took it out of view (an edit refused says so)."""
        key = _key(path)
        if self._reads.pop(key, None) is not None and summarised:
            self.summarised.add(key)

    def clear(self) -> None:
        self._reads.clear()
        self.summarised.clear()

    def __len__(self) -> int:
        return len(self._reads)

    def __contains__(self, path: object) -> bool:
        return isinstance(path, (str, Path)) and _key(path) in self._reads

    def current_json(self) -> bytes:
        """The reads whose file has its mtime and size still, as JSON, each with the hash of what it
        held when read (up to `HASHED_BYTES`): what a checkpoint keeps. Made every turn, so nothing is
        hashed again (60 read 3 MB files took ~120 ms); an edit still asks `is_current`, digest and all."""
        files = [{**asdict(r), "path": str(r.path),
                  "sha256": r.digest if r.digest is not None and (r.size or 0) <= HASHED_BYTES else _digest(r.path)}
                 for r in self._reads.values() if _unchanged(r)]
        return json.dumps({"version": 1, "files": files}).encode()

    def rewound(self, kept: bytes, put_back: Iterable[Path]) -> None:
        """After a rewind to a turn: the reads as that turn began (`kept`, `current_json` then), the
        files the rewind `put_back` as they were then counting as seen as they are now. Before, a
        rewind kept the reads of the turns it undid and lost those of the files it put back, whose
        changed time they no longer matched: the model's first edit of a file it had read in the
        conversation it went back to was refused, 'File changed on disk since it was read'."""
        data = json.loads(kept)
        was = ReadFileState.from_json(data)
        hashes = {_key(f["path"]): f.get("sha256") for f in data.get("files", []) if isinstance(f, dict) and "path" in f}
        back = {_key(p) for p in put_back}
        self._reads.clear()
        self.summarised.clear()  # the reads as that turn began: none summarised since
        for entry in was._reads.values():
            key = _key(entry.path)
            if key in back:  # as it was when read, unless it changed before the version put back was saved
                seen = hashes.get(key)
                if seen is None or _digest(key) != seen:
                    continue
                try:
                    st = os.stat(key)
                    entry = replace(entry, path=key, mtime_ns=st.st_mtime_ns, size=st.st_size, digest=seen,
                                    mixed=False)
                except OSError:
                    continue
            self._reads[key] = entry

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (the session store decides where it goes)."""
        files = [{**asdict(r), "path": str(r.path)} for r in self._reads.values()]
        return {"version": 1, "files": files}

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> ReadFileState:
        """Rebuild from `to_json` output; malformed entries are skipped, never fatal."""
        state = cls()
        for item in (data or {}).get("files", []):
            try:
                entry = FileRead(
                    Path(item["path"]), int(item["mtime_ns"]), bool(item.get("partial", False)), item.get("offset"),
                    item.get("limit"), float(item.get("time", 0.0)),
                    None if item.get("size") is None else int(item["size"]),
                    item["digest"] if isinstance(item.get("digest"), str) else None, bool(item.get("mixed", False)))
            except (KeyError, TypeError, ValueError):
                continue
            state._reads.pop(entry.path, None)
            state._reads[entry.path] = entry
        return state


#: A read file larger than this is not hashed for a checkpoint: a rewind then asks for it to be read again.
HASHED_BYTES = 1 << 20
#: A read file up to this is hashed when read and when an edit asks if it is current (~6 ms for 4 MB).
DIGEST_BYTES = 4 << 20


class HeldReads:
    """The reads a compaction's restored files make, held back until the compaction holds.

    A compaction is built before it is known to hold: refused as no smaller, previewed and declined,
    or a summary that failed. The files it restores are read while it is built (`hold`), and counted
    as read only for those the history it left shows (`settle`); before, a compaction that never
    happened left them recorded as read, and `edit_file` trusted reads the model could not see."""

    def __init__(self, state: ReadFileState) -> None:
        self.state = state
        self.held: dict[Path, FileRead] = {}

    def hold(self, read: Callable[[], T]) -> T:
        """`read()`, with the reads it records taken back out of the state and held."""
        before, summarised = dict(self.state._reads), set(self.state.summarised)
        try:
            return read()
        finally:
            self.held = {k: e for k, e in self.state._reads.items() if before.get(k) is not e}
            self.state._reads, self.state.summarised = before, summarised

    def settle(self, visible: Iterable[Path]) -> None:
        """The compaction held: what it read of the files the history now shows counts as read. A
        held read older than the state's own of the file, or of a file changed since, is dropped: it
        may be a compaction's that never held (one that restores nothing reads nothing to replace it)."""
        seen, held, self.held = {_key(p) for p in visible}, self.held, {}
        for key, entry in held.items():
            now, st = self.state.get(key), _stat(key)
            if key in seen and (now is None or now.time <= entry.time) and st and st.st_mtime_ns == entry.mtime_ns:
                self.state.record(key, entry.mtime_ns, entry.partial, offset=entry.offset, limit=entry.limit)


def _stat(path: Path) -> os.stat_result | None:
    with contextlib.suppress(OSError):
        return os.stat(path)
    return None


def _digest(path: Path, cap: int = HASHED_BYTES) -> str | None:
    """The SHA-256 of the file at `path`, or None (larger than `cap`, or not to be read)."""
    try:
        if os.stat(path).st_size > cap:
            return None
        with open_regular(path) as f:  # a FIFO or a device put there is not read; in pieces: memory stays small
            h = hashlib.sha256()
            while piece := f.read(1 << 18):
                h.update(piece)
            return h.hexdigest()
    except (OSError, ValueError):
        return None


def _unchanged(entry: FileRead) -> bool:
    """Whether `entry` saw one version of its file, which has its mtime and size still."""
    with contextlib.suppress(OSError):
        st = os.stat(entry.path)
        return not entry.mixed and st.st_mtime_ns == entry.mtime_ns and entry.size in (None, st.st_size)
    return False


def _version(path: Path, mtime_ns: int) -> tuple[int | None, str | None]:
    """The size and digest (up to `DIGEST_BYTES`) of the file at `path` if it still has `mtime_ns`."""
    with contextlib.suppress(OSError):
        if (st := os.stat(path)).st_mtime_ns == mtime_ns:  # else changed since the read began: is_current says so
            return st.st_size, _digest(path, DIGEST_BYTES)
    return None, None


class Changed(OSError):
    """The file no longer holds what a change was made from (another changed, made or removed it)."""


def atomic_write_bytes(path: Path, data: bytes, mode: int | None = None, *, checked: bool = False,
                       expect: bool = False, holding: bytes | None = None) -> None:
    """Write via temp file + fsync + rename so readers see the old or the new file, never a torn one.

    `mode=None` keeps an existing file's permissions (a new file gets the umask default); an explicit
    mode is applied exactly (checkpoint blobs use 0600). `checked`: `path` is resolved and the fence
    passed it, so the write goes into that very folder or nowhere (safety/checked_open.py): a link
    swapped in since the check raises Swapped, and one at the end is replaced, not written through.
    `expect`: the file must still hold `holding` (None: be absent) just before the rename, else Changed;
    a new file is put in place by a link, which fails if a file came there since the look.
    """
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    folder = open_folder(path.parent) if checked and os.rename in os.supports_dir_fd else None
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666 if mode is None else mode)
        try:
            if folder is not None and (real := where_opened(fd)) is not None and real != str(tmp):
                os.close(fd)
                raise swapped(path)
            # a SIGTERM or SIGHUP ends the run before `except` can remove the temp: its handler does
            with temp_files.being_written(str(tmp) if folder is None else tmp.name, fd, folder):
                with os.fdopen(fd, "wb") as f:
                    if mode is not None:
                        os.fchmod(f.fileno(), mode)
                    else:  # the file it replaces keeps its mode (in the checked folder: the file there, not a link's target)
                        with contextlib.suppress(FileNotFoundError):
                            was = (os.stat(path) if folder is None
                                   else os.stat(path.name, dir_fd=folder, follow_symlinks=False))
                            if folder is None or stat.S_ISREG(was.st_mode):
                                os.fchmod(f.fileno(), stat.S_IMODE(was.st_mode))
                    f.write(data)
                    f.flush()
                    os.fsync(f.fileno())
                if expect and not _holds(path, folder, holding):
                    raise Changed(errno.ESTALE, "changed since it was read", str(path))
                if folder is not None:  # into the folder that was checked, whatever its path leads to now
                    if not (expect and holding is None and _linked(tmp.name, path, folder)):
                        os.replace(tmp.name, path.name, src_dir_fd=folder, dst_dir_fd=folder)
                else:
                    os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    finally:
        if folder is not None:
            os.close(folder)
    with contextlib.suppress(OSError):
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def read_all(fd: int, at_most: int) -> bytes:
    """The bytes of the file open as `fd` from its start, past `at_most` by at most a MiB."""
    parts, n = [], 0
    while n <= at_most and (part := os.pread(fd, 1 << 20, n)):
        parts.append(part)
        n += len(part)
    return b"".join(parts)


def _holds(path: Path, folder: int | None, was: bytes | None) -> bool:
    """Whether `path` (its name in `folder`) is a regular file holding `was` (None: is not there)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path.name, flags, dir_fd=folder) if folder is not None else os.open(path, flags)
    except FileNotFoundError:
        return was is None
    except OSError:
        return False
    try:
        st = os.fstat(fd)
        return (was is not None and stat.S_ISREG(st.st_mode) and st.st_size == len(was)
                and read_all(fd, len(was)) == was)
    finally:
        os.close(fd)


def _linked(tmp: str, path: Path, folder: int) -> bool:
    """`tmp` put in place as `path` by a link, Changed if a file is there; False where links fail."""
    try:
        os.link(tmp, path.name, src_dir_fd=folder, dst_dir_fd=folder, follow_symlinks=False)
    except FileExistsError:
        raise Changed(errno.EEXIST, "made since it was looked for", str(path)) from None
    except (OSError, NotImplementedError):
        return False
    os.unlink(tmp, dir_fd=folder)
    return True


#: Beside the session file: what was read, so edits after a resume need no re-read.
READ_STATE_FILE = "read_state.json"


def load_read_state(p: Path, warnings: list[str]) -> ReadFileState:
    """The read state saved at `p`; empty (with a warning when `p` is unreadable) otherwise."""
    try:
        return ReadFileState.from_json(json.loads(read_own(p)))
    except FileNotFoundError:
        return ReadFileState()
    except (OSError, ValueError, RecursionError, TypeError, KeyError, AttributeError):
        warnings.append(f"{p.name} is unreadable; files must be read again before they are edited")
        return ReadFileState()


def save_read_state(state: ReadFileState, p: Path, warnings: list[str]) -> None:
    """Save `state` at `p` atomically; a failure is a warning, not a failed turn."""
    try:
        atomic_write(p, json.dumps(state.to_json()).encode())
    except OSError as e:
        warnings.append(f"could not save the read-file state: {e}")
