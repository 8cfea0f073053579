"""Where one session's `/rewind` checkpoints are kept on disk: their list and the saved versions.

The list is `checkpoints.json`; each version of a file is a blob named by the SHA-256 of its bytes
(one version saved by several checkpoints is stored once), sealed so that the key a `.env` holds
stays out of our files. Everything is written atomically, 0600 files in a 0700 folder, since file
contents may be private. This is apart from checkpoints.py, which decides what is saved and what a
rewind puts back, so that the file formats, a full disk and a list we did not write are dealt with
in one place, and the rewind logic reads as logic.

The list is saved at each turn and before each file a tool first changes in it. Written whole each
time, that grew with the session: 1,500 turns made a 660 KB list rewritten (and fsynced) two or
three times a turn. Past `LOG_FROM` bytes, what changed since the last save (the checkpoints added
or changed: the newest, mostly) is appended to `checkpoints.log` instead, one line per checkpoint
(`{"log": MARK, "at": N, "checkpoint": {...}}`: checkpoint N is this one, or the next), fsynced;
when the log grows as large as the list, the list is written whole again (temp file, fsync,
rename) and the log removed. The list names its log by a mark the log's lines carry: lines of
another list's log (an earlier version wrote the list whole since, or the log could not be removed)
are not read, nor a line torn by a crash. A save that shortens the list (a rewind, checkpoints a
branch dropped) writes it whole, and so does the save after one that failed, or after another
writer (the files are not as this store left them).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import stat
from pathlib import Path
from secrets import token_hex
from typing import Any

from ... import secrets
from ...regular_file import read_own
from .file_state import atomic_write_bytes

INDEX = "checkpoints.json"
LOG = "checkpoints.log"
#: Below this size the list is written whole at each save; above it, what changed is appended to its log.
LOG_FROM = 32 * 1024
#: What a write that found no room failed with (a full disk, a quota).
_NO_ROOM = (errno.ENOSPC, errno.EDQUOT)
#: The name of a saved version: the SHA-256 of its bytes. A list that names one otherwise (a path, `../x`)
#: was not written by us; that version is missing, never read from wherever the name points.
_BLOB_NAME = re.compile(r"[0-9a-f]{64}")


def overwrite_in_place(path: Path, data: bytes) -> None:
    """Write `data` over the file at `path` where it is, cutting off what is left after it: a
    shorter list needs no new room on a full disk, where a new file beside it (an atomic write) does."""
    fd = os.open(path, os.O_WRONLY)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.ftruncate(fd, len(data))
        os.fsync(fd)
    finally:
        os.close(fd)


class CheckpointStore:
    """The list and the versions under `store_dir` (module docstring)."""

    def __init__(self, store_dir: Path) -> None:
        self.store_dir = store_dir
        #: The entries the list and its log hold, as this store last read or wrote them (copies, not
        #: redacted), its mark, and the files as it left them: None, not known (write it whole).
        self._disk: list[dict[str, Any]] | None = None
        self._mark = ""
        self._left: tuple[tuple[int, int, int], int] | None = None  # (the list's inode, size, mtime), the log's size
        self._sizes: dict[str, int] = {}  # of the versions: each is written once, never changed

    @property
    def index(self) -> Path:
        return self.store_dir / INDEX

    @property
    def log(self) -> Path:
        return self.store_dir / LOG

    @property
    def blobs(self) -> Path:
        return self.store_dir / "blobs"

    def _ensure_dirs(self) -> None:
        for d in (self.store_dir, self.blobs):
            d.mkdir(parents=True, exist_ok=True, mode=0o700)
            os.chmod(d, 0o700)

    def blocked(self) -> str | None:
        """Why no checkpoint can be kept here, or None: something else stands where the store's
        folders or its list go (a folder named checkpoints.json, a file named blobs). Writing over
        it fails every time, which ended each turn of the session with an error."""
        for path, folder, what in ((self.store_dir, True, "the checkpoints' folder"),
                                   (self.blobs, True, "the folder of saved versions"),
                                   (self.index, False, "the checkpoint list"),
                                   (self.log, False, "the checkpoint log")):
            try:
                is_dir = stat.S_ISDIR(os.stat(path).st_mode)  # a link to a folder is one
            except OSError:
                continue  # not there (made when first needed), or not to be known from here
            if is_dir != folder:
                return f"{'a folder' if is_dir else 'a file'} stands where {what} goes: {path}"
        return None

    def read_list(self) -> Any:
        """The entries of the list on disk with its log's lines applied, as read: raises what reading
        the list raises (not there, not UTF-8, not JSON, not an object), and the caller checks each
        entry's shape. A log that cannot be read leaves the list as it is (and the next save writes it whole)."""
        self._disk = None
        entries, mark = _listed(self.index, self.log)
        if mark and isinstance(entries, list) and all(isinstance(e, dict) for e in entries):
            self._disk, self._mark, self._left = json.loads(_text(entries)), mark, self._files()
        return entries

    def knows(self, since: int) -> bool:
        """Whether the list on disk is known up to entry `since` (saved or read by this store, and
        no save failed since), so that a save may give the entries from there on only."""
        return self._disk is not None and since <= len(self._disk)

    def write_list(self, entries: list[dict[str, Any]], since: int = 0) -> None:
        """Save the list: `entries` from entry `since` on, those before it as this store last saved
        them (`knows`). A save that fails leaves the list on disk unknown: the next one is whole."""
        if since:
            if self._disk is None or since > len(self._disk):
                raise ValueError("a save from an entry the list on disk is not known to hold")
            entries = [*self._disk[:since], *entries]
        try:
            self._write(entries)
        except BaseException:
            self._disk = None
            raise

    def _write(self, entries: list[dict[str, Any]]) -> None:
        self._ensure_dirs()
        if self._appended(entries):
            return
        texts = [_text(e) for e in entries]
        mark = token_hex(8)
        # The prompts are the user's words, which may quote the API key (older indexes held it too).
        text = secrets.redact(f'{{"version": 1, "log": "{mark}", "checkpoints": [\n' + ",\n".join(texts)
                              + "\n]}\n").encode()
        index = self.index
        try:
            atomic_write_bytes(index, text, mode=0o600)
        except OSError as e:
            # On a full disk a list that shrank (after a rewind, a prune) is written over the old
            # one: the checkpoints kept are kept for a later run too, not only the old list's.
            try:
                if e.errno not in _NO_ROOM or len(text) > index.stat().st_size:
                    raise
                overwrite_in_place(index, text)
            except OSError:
                raise e from None
        with contextlib.suppress(OSError):  # its lines carry the old mark: not read with this list
            self.log.unlink()
        self._disk, self._mark, self._left = [json.loads(t) for t in texts], mark, self._files()

    def _appended(self, entries: list[dict[str, Any]]) -> bool:
        """Append the `entries` that changed since the last save to the log (module docstring);
        False when the list is to be written whole: small, shortened, the log as large as it, or
        the files not as this store left them."""
        disk, left = self._disk, self._left
        if disk is None or left is None or len(entries) < len(disk) or left[0][1] < LOG_FROM or self._files() != left:
            return False
        changed = {i: _text(e) for i, e in enumerate(entries) if i >= len(disk) or (e is not disk[i] and e != disk[i])}
        if not changed:
            return True
        data = secrets.redact("".join(f'{{"log": "{self._mark}", "at": {i}, "checkpoint": {t}}}\n'
                                      for i, t in changed.items())).encode()
        if left[1] + len(data) > left[0][1]:
            return False
        fd = os.open(self.log, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC, 0o600)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO would take lines until full, then wait
                raise OSError(errno.EINVAL, "not a regular file", str(self.log))
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        for i, t in changed.items():
            disk[i:i + 1] = [json.loads(t)]
        self._left = (left[0], left[1] + len(data))
        return True

    def _files(self) -> tuple[tuple[int, int, int], int] | None:
        """The list's inode, size and time, and the log's size: what another writer changes."""
        try:
            st = os.stat(self.index)
        except OSError:
            return None
        try:
            logged = os.stat(self.log).st_size
        except FileNotFoundError:
            logged = 0
        except OSError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns), logged

    def forget_list(self, held: int) -> str:
        """After a save failed: when the list on disk names more checkpoints than the `held` ones
        (a rewind's that could not be saved), delete it, which needs no room (see
        `Checkpoints.forget_saved`)."""
        self._disk = None
        try:
            listed, _ = _listed(self.index, self.log)
        except (OSError, ValueError, AttributeError, RecursionError):
            return ""
        if not isinstance(listed, list) or len(listed) <= held:
            return ""
        try:
            self.index.unlink()
        except FileNotFoundError:
            return ""
        except OSError:
            return "stale"
        with contextlib.suppress(OSError):
            self.log.unlink()
        return "deleted"

    def keep(self, data: bytes) -> tuple[str, bool]:
        """Save `data` as a version: its name, and whether it is new (not kept already)."""
        blob = hashlib.sha256(data).hexdigest()
        self._ensure_dirs()
        target = self.blobs / blob
        grew = not target.exists()
        if grew:  # the key a .env holds is kept out of our files: a mark stands for it
            atomic_write_bytes(target, secrets.seal_bytes(data), mode=0o600)
        return blob, grew

    def size(self, blob: str) -> int:
        """The bytes version `blob` takes (0: missing), known once read: pruning asks for every one."""
        if (known := self._sizes.get(blob)) is not None:
            return known
        try:
            size = self._sizes[blob] = self.blob(blob).stat().st_size
        except OSError:
            return 0
        return size

    def blob(self, blob: str) -> Path:
        """Where the saved version `blob` is: in the session's store, whatever the list says; a name
        that is no blob's is a file that is never there."""
        return self.blobs / (blob if _BLOB_NAME.fullmatch(blob) else "not-a-blob")

    def version(self, blob: str) -> bytes | None:
        """The bytes of saved version `blob`, the key put back in its place; None when it held
        another key, or is missing."""
        try:
            return secrets.unseal_bytes(self.blob(blob).read_bytes())
        except OSError:
            return None

    def collect(self, live: set[str]) -> None:
        """Delete the versions not in `live` (those no remaining checkpoint refers to)."""
        if not self.blobs.is_dir():
            return
        for blob in self.blobs.iterdir():
            if blob.name not in live:
                self._sizes.pop(blob.name, None)
                with contextlib.suppress(OSError):
                    blob.unlink()


def _text(entry: Any) -> str:
    return json.dumps(entry, ensure_ascii=False)


def _listed(index: Path, log: Path) -> tuple[Any, str]:
    """The entries of the list at `index` with the lines of its log applied (module docstring), and
    its mark; raises what reading the list raises. A line of the log that is not one of this list's,
    or names no place in it, is passed over."""
    raw = json.loads(read_own(index).decode("utf-8"))
    entries, mark = raw.get("checkpoints", []), raw.get("log")
    if not (isinstance(mark, str) and mark and isinstance(entries, list)):
        return entries, ""
    try:
        raw_log = read_own(log)
    except FileNotFoundError:
        return entries, mark
    except OSError:  # not a regular file, too large: the list as it is, written whole at the next save
        return entries, ""
    for line in raw_log.splitlines():
        try:
            d = json.loads(line)
        except (ValueError, RecursionError):  # torn by a crash: what it held is in the next save
            continue
        if isinstance(d, dict) and d.get("log") == mark and isinstance(at := d.get("at"), int) and \
                isinstance(entry := d.get("checkpoint"), dict) and 0 <= at <= len(entries):
            entries[at:at + 1] = [entry]
    # A log ending in a torn line would have the next line appended onto it: written whole instead.
    return entries, mark if raw_log.endswith(b"\n") or not raw_log else ""
