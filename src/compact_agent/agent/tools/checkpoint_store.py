"""Where one session's `/rewind` checkpoints are kept on disk: their list and the saved versions.

The list is `checkpoints.json`; each version of a file is a blob named by the SHA-256 of its bytes
(one version saved by several checkpoints is stored once), sealed so that the key a `.env` holds
stays out of our files. Everything is written atomically, 0600 files in a 0700 folder, since file
contents may be private. This is apart from checkpoints.py, which decides what is saved and what a
rewind puts back, so that the file formats, a full disk and a list we did not write are dealt with
in one place, and the rewind logic reads as logic.
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
from typing import Any

from ... import secrets
from ...regular_file import read_own
from .file_state import atomic_write_bytes

INDEX = "checkpoints.json"
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

    @property
    def index(self) -> Path:
        return self.store_dir / INDEX

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
                                   (self.index, False, "the checkpoint list")):
            try:
                is_dir = stat.S_ISDIR(os.stat(path).st_mode)  # a link to a folder is one
            except OSError:
                continue  # not there (made when first needed), or not to be known from here
            if is_dir != folder:
                return f"{'a folder' if is_dir else 'a file'} stands where {what} goes: {path}"
        return None

    def read_list(self) -> Any:
        """The entries of the list on disk, as read: raises what reading it raises (not there, not
        UTF-8, not JSON, not an object), and the caller checks each entry's shape."""
        return json.loads(read_own(self.index).decode("utf-8")).get("checkpoints", [])

    def write_list(self, entries: list[dict[str, Any]]) -> None:
        self._ensure_dirs()
        data = {"version": 1, "checkpoints": entries}
        # The prompts are the user's words, which may quote the API key (older indexes held it too).
        text = secrets.redact(json.dumps(data, indent=1)).encode()
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

    def forget_list(self, held: int) -> str:
        """After a save failed: when the list on disk names more checkpoints than the `held` ones
        (a rewind's that could not be saved), delete it, which needs no room (see
        `Checkpoints.forget_saved`)."""
        index = self.index
        try:
            listed = json.loads(read_own(index)).get("checkpoints")
        except (OSError, ValueError, AttributeError, RecursionError):
            return ""
        if not isinstance(listed, list) or len(listed) <= held:
            return ""
        try:
            index.unlink()
        except FileNotFoundError:
            return ""
        except OSError:
            return "stale"
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
        try:
            return self.blob(blob).stat().st_size
        except OSError:
            return 0

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
                with contextlib.suppress(OSError):
                    blob.unlink()
