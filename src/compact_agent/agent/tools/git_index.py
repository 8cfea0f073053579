"""The paths a git repository's index lists (`.git/index`), which the walk asks about a folder named
as installed packages (walk.py: one git tracks files in is the project's source, and searched).

Read here, as ignores.py reads the ignore files, rather than asked of git: git may run what its
config names, and may not be installed. Versions 2 to 4 as git writes them, SHA-1 and SHA-256
repositories, a split index's shared part, a linked work tree's own index; an index that is
missing, larger than MAX_INDEX_BYTES or not one git writes lists nothing. Kept, per repository,
while the file is the same.
"""

from __future__ import annotations

import os
import struct
import threading
from bisect import bisect_left
from pathlib import Path

from ..safety.checked_open import open_read
from .ignores import read_rules

MAX_INDEX_BYTES = 64 << 20  # of a repository's index: a larger one is not read, as if it tracked nothing
KEPT_INDEXES = 2  # repositories whose index's paths are kept between searches
_read_indexes: dict[str, tuple[tuple[int, int, int], list[bytes]]] = {}  # git dir: (its index's stat, its paths)
_indexes_lock = threading.Lock()


class Tracked:
    """The paths a repository's index lists (`.git/index`, read here, as ignores.py reads the ignore
    files, not asked of git), read when a walk first asks about that repository, and kept, for as
    long as the file is the same, for the next walk."""

    def __init__(self) -> None:
        self.paths: dict[str, list[bytes]] = {}

    def under(self, top: str, rel: str) -> bool:
        """Whether the index of the repository at `top` lists a path under its folder `rel`."""
        if (paths := self.paths.get(top)) is None:
            paths = self.paths[top] = index_paths(Path(top, ".git"))
        prefix = os.fsencode(rel) + b"/"
        i = bisect_left(paths, prefix)
        return i < len(paths) and paths[i].startswith(prefix)


def index_paths(dot_git: Path) -> list[bytes]:
    """The paths, sorted, in the index of the repository whose `.git` is `dot_git` (a folder, or a
    file naming the git dir of a linked work tree or a submodule); with a split index, those of its
    shared index too; none when the index is missing, too large or not one git writes."""
    git_dir = dot_git
    if not dot_git.is_dir():
        text = read_rules(dot_git, follow=True)
        if not text.startswith("gitdir:"):
            return []
        git_dir = dot_git.parent / text[len("gitdir:"):].strip()
    try:
        with open_read(git_dir.resolve() / "index") as fh:
            st = os.fstat(fh.fileno())
            key = (st.st_mtime_ns, st.st_size, st.st_ino)
            if (known := _read_indexes.get(str(git_dir))) is not None and known[0] == key:
                return known[1]
            data = fh.read() if st.st_size <= MAX_INDEX_BYTES else b""
    except (OSError, RuntimeError):
        return []
    paths: list[bytes] = []
    for hash_size in (20, 32):  # SHA-1, SHA-256
        if (read := _parse_index(data, hash_size)) is not None:
            paths, shared = read
            if shared:
                paths += _shared_paths(git_dir / f"sharedindex.{shared}", hash_size)
            break
    paths.sort()
    with _indexes_lock:
        while len(_read_indexes) >= KEPT_INDEXES:
            del _read_indexes[next(iter(_read_indexes))]
        _read_indexes[str(git_dir)] = (key, paths)
    return paths


def _shared_paths(path: Path, hash_size: int) -> list[bytes]:
    try:
        with open_read(path.parent.resolve() / path.name) as fh:
            read = _parse_index(fh.read(MAX_INDEX_BYTES + 1), hash_size)
    except (OSError, RuntimeError):
        return []
    return read[0] if read is not None else []


def _parse_index(data: bytes, hash_size: int) -> tuple[list[bytes], str] | None:
    """The paths an index file lists (versions 2 to 4, as git writes them, with an object hash of
    `hash_size` bytes), and the name of its shared index when it is split ('' when not); None when
    `data` is no such file, each entry's name checked against the length its flags give."""
    if len(data) < 12 or data[:4] != b"DIRC":
        return None
    version, count = struct.unpack_from(">II", data, 4)
    if version not in (2, 3, 4):
        return None
    paths: list[bytes] = []
    pos, last, flags_at = 12, b"", 40 + hash_size  # times, dev, ino, mode, uid, gid, size: 40 bytes; the hash
    try:
        for _ in range(count):
            flags = int.from_bytes(data[pos + flags_at: pos + flags_at + 2], "big")
            at = pos + flags_at + (4 if version > 2 and flags & 0x4000 else 2)
            if version == 4:  # the name is what it keeps of the one before, then the rest
                strip, at = _varint(data, at)
                if strip > len(last):
                    return None
                end = data.index(b"\0", at)
                name, pos = last[: len(last) - strip] + data[at:end], end + 1
            else:
                end = data.index(b"\0", at)
                name = data[at:end]
                pos += (end - pos + 8) & ~7  # padded with 1 to 8 NULs to a multiple of 8
            if flags & 0xFFF != min(len(name), 0xFFF) or pos > len(data) - hash_size:
                return None
            paths.append(name)
            last = name
        shared = ""
        while pos + 8 <= len(data) - hash_size:  # the extensions: a signature, a size, the data
            size = int.from_bytes(data[pos + 4: pos + 8], "big")
            if data[pos: pos + 4] == b"link":
                shared = data[pos + 8: pos + 8 + hash_size].hex()
            pos += 8 + size
    except (ValueError, IndexError):
        return None
    return paths, shared


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """The number written at `at` as git's index writes one (7 bits a byte, each more byte adding
    one before its shift), and where it ends."""
    c = data[at]
    value, at = c & 0x7F, at + 1
    while c & 0x80:
        c = data[at]
        value, at = ((value + 1) << 7) | (c & 0x7F), at + 1
    return value, at
