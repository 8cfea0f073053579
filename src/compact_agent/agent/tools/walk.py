"""The walk grep and glob share: bounded (time, interrupt, entries), iterative, from folders opened
as checked, hiding what a `deny_paths` rule covers and skipping what git ignores (ignores.py).

An entry a deny rule matches by its own name or path (`.env`, `secrets/*`) is not given as a file
to search or list: it comes out marked `hidden`, so the tool leaves it out and says how many it
left out in one line (`hidden_note`), and the model neither learns the name nor keeps looking for
what it cannot see. A folder a rule matches is not entered (its names are not read at all).

An entry git ignores comes out marked `ignored` (a folder of them not entered), and a symlinked
folder, which is not followed, marked `link`: the tools name them in a line, so "No matches" is
never said of a tree they did not look through.

Folders named as a version control system's store or a tool's cache (`.git`, `__pycache__`:
NEVER_SEARCHED) are never entered. A folder named as installed packages (`node_modules`, `.venv`,
`venv`, `.tox`: INSTALLED_DIRS) is skipped only when it holds what its name says: not when git
tracks files in it (typeshed's `stdlib/venv/`, a project's own code checked in under
`node_modules`), which is the project's source, nor a `venv` that is no virtual environment (a
package named `venv`). One skipped comes out marked `installed`, and the tools name it when they
found nothing, so "No matches" is not taken for an answer about a library's code either.
"""

from __future__ import annotations

import os
import struct
import threading
import time
from bisect import bisect_left
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import NamedTuple

from ..safety.checked_open import Entry, Swapped, names_in, open_read
from .base import INSTALLED_DIRS, NEVER_SEARCHED, name_line
from .ignores import Rules, read_rules, rules_above

WALK_MAX_ENTRIES = 1_000_000


class Bound:
    """When a search must stop: a deadline on `clock`, an interrupt, an entry budget. `why` says
    which one stopped it and where (empty while none has). `name` names a path as the tool names
    it to the model (relative to the working directory): the place is named only once the search
    stops, since naming it at every line was most of a search's time."""

    def __init__(self, seconds: float, stop: threading.Event | None = None,
                 clock: Callable[[], float] = time.monotonic, max_entries: int = WALK_MAX_ENTRIES,
                 name: Callable[[Path], str] = str) -> None:
        self.clock, self.stop, self.seconds, self.name = clock, stop, seconds, name
        self.deadline = clock() + seconds
        self.entries_left = max_entries
        self.why = ""

    def left(self) -> float:
        return self.deadline - self.clock()

    def exceeded(self, where: str | Callable[[], str]) -> bool:
        """Whether the search must stop (`why` set, naming `where`, a path or what gives it)."""
        if not self.why:
            if self.stop is not None and self.stop.is_set():
                self.why = "interrupted"
            elif self.left() <= 0:
                self.why = f"stopped after {self.seconds:g} s"
            elif self.entries_left <= 0:
                self.why = f"stopped after {WALK_MAX_ENTRIES:,} entries"
            else:
                return False
            self.why += f" at {name_line(where() if callable(where) else where)}"
        return True

    def ran_out(self, where: str) -> None:
        """The time ran out while a line was searched (the pattern's own timeout was what was left)."""
        if not self.why:
            self.why = f"stopped after {self.seconds:g} s at {name_line(where)}"


class Found(NamedTuple):
    """An entry the walk gives: a file (`path`, and `rel`, its path relative to the root), or,
    `hidden`, an entry a deny rule covers, which no listing shows (`folder`: a folder not entered);
    `ignored`, one git ignores; `link`, a symlinked folder, not followed; `installed`, a folder of
    installed packages, not entered (`_skips_installed`)."""

    path: Path
    rel: str
    hidden: bool = False
    folder: bool = False
    ignored: bool = False
    link: bool = False
    installed: bool = False


def _walk(root: Path, max_depth: int | None = None, bound: Bound | None = None,
          prune: Callable[[Path], bool] | None = None,
          hide: Callable[[Path], bool] | None = None) -> Iterator[Found]:
    """The files under root, sorted, depth first, pruning NEVER_SEARCHED, the dirs `prune` names (by
    their path: root is resolved and symlinked dirs are not entered, so it is the real one) and
    beyond max_depth. An entry `hide` names (a deny rule's) is given `hidden`, a folder of them
    not entered: `hide` is asked about each entry itself only (Permissions.own_deny_rule), as no
    folder above an entry, from `root` (cleared by the caller) down, is one a rule matches. Iterative (no recursion limit); ends early, with `bound.why` set, when `bound` says.
    An entry git ignores is given `ignored` (a folder of them not entered: ignores.py); a symlinked
    folder that would have been entered is given `link`; a folder of installed packages skipped
    (`_skips_installed`), `installed`.

    `root` is resolved and checked, and each folder is listed from a descriptor opened as checked
    (safety/checked_open.py): one swapped for a link since it was listed in the folder above it is
    skipped, and no name of where the link leads is listed. The root swapped so raises Swapped."""
    named = bound.name if bound is not None else str
    above = rules_above(root)
    # (dir path, its path relative to root, depth, the ignore rules above it and its path in their repository)
    stack: list[tuple[str, str, int, Rules | None, str]] = [
        (str(root), "", 0, above[0] if above else None, above[1] if above else "")]
    tracked = _Tracked()
    while stack:
        dirpath, rel_dir, depth, rules, in_repo = stack.pop()
        if bound is not None and bound.exceeded(partial(_named_at, named, dirpath)):
            return
        try:
            entries = sorted(names_in(Path(dirpath)), key=lambda e: e.name)
        except Swapped:
            if not rel_dir:
                raise
            continue
        except OSError:  # unreadable, vanished, or a path too long for the system: skipped
            continue
        rules, in_repo = _rules_here(dirpath, entries, rules, in_repo, bool(rel_dir))
        subdirs = []
        for e in entries:
            path = os.path.join(dirpath, e.name)
            if bound is not None:
                bound.entries_left -= 1
                if bound.exceeded(partial(_named_at, named, path)):
                    return
            rel = f"{rel_dir}/{e.name}" if rel_dir else e.name
            if e.is_dir:  # a symlinked dir is listed as a dir but not entered (as os.walk does): no loops
                if e.name in NEVER_SEARCHED or not (max_depth is None or depth + 1 < max_depth) \
                        or (not e.is_link and prune is not None and prune(Path(path))) \
                        or (e.is_link and e.name in INSTALLED_DIRS):
                    continue
                if hide is not None and hide(Path(path)):
                    if not e.is_link:
                        yield Found(Path(path), rel, hidden=True, folder=True)
                elif e.name in INSTALLED_DIRS and _skips_installed(path, e, rules, in_repo, tracked):
                    yield Found(Path(path), rel, folder=True, installed=True)
                elif (ignored := _ignored(rules, in_repo, e)) or e.is_link:
                    yield Found(Path(path), rel, folder=True, ignored=ignored, link=not ignored)
                else:
                    subdirs.append((path, rel, depth + 1, rules, f"{in_repo}/{e.name}" if in_repo else e.name))
            else:
                hidden = hide is not None and hide(Path(path))
                yield Found(Path(path), rel, hidden=hidden, ignored=not hidden and _ignored(rules, in_repo, e))
        stack.extend(reversed(subdirs))


def _ignored(rules: Rules | None, in_repo: str, e: Entry) -> bool:
    return rules is not None and rules.ignored(f"{in_repo}/{e.name}" if in_repo else e.name, e.is_dir)


def _named_at(named: Callable[[Path], str], path: str) -> str:
    return named(Path(path))


def _rules_here(dirpath: str, entries: list[Entry], rules: Rules | None, in_repo: str,
                below_root: bool) -> tuple[Rules | None, str]:
    """The ignore rules in force among a folder's entries, and its path in their repository: a
    folder holding `.git` below the searched one starts a repository of its own; its `.gitignore`
    (a regular file, not a link) adds to the rules."""
    names = {e.name: e for e in entries}
    if below_root and ".git" in names:
        rules, in_repo = Rules.of_repository(Path(dirpath)), ""
    if rules is not None and (g := names.get(".gitignore")) is not None and not g.is_dir and not g.is_link:
        rules = rules.with_file(in_repo, read_rules(Path(dirpath, ".gitignore")))
    return rules, in_repo


def _skips_installed(path: str, e: Entry, rules: Rules | None, in_repo: str, tracked: _Tracked) -> bool:
    """Whether the folder `e` at `path`, named as installed packages (INSTALLED_DIRS), is skipped.

    What git tracks is the project's source, so a folder git tracks files in is searched (the
    repository's index says so: `_Tracked`), unless git ignores the folder, as its patterns are
    applied to tracked files too (ignores.py). Outside a repository (or one another user owns,
    whose files this user's git would not read either), the name decides, but for `venv`, the one
    name here a Python package can have (the standard library's own module is one): a `venv`
    folder is skipped only when it is a virtual environment, as every tool that makes one marks it
    (`pyvenv.cfg` from venv, virtualenv, uv; `conda-meta` from conda; the activate scripts of
    virtualenv before 20)."""
    if rules is not None:
        child = f"{in_repo}/{e.name}" if in_repo else e.name
        if rules.ignored(child, True):
            return True
        top = path[: len(path) - len(child) - 1]
        if tracked.under(top, child):
            return False
    return e.name != "venv" or any(os.path.lexists(os.path.join(path, marker)) for marker in _VENV_MARKERS)


_VENV_MARKERS = ("pyvenv.cfg", "conda-meta", os.path.join("bin", "activate"), os.path.join("Scripts", "activate"))
MAX_INDEX_BYTES = 64 << 20  # of a repository's index: a larger one is not read, as if it tracked nothing
KEPT_INDEXES = 2  # repositories whose index's paths are kept between searches
_read_indexes: dict[str, tuple[tuple[int, int, int], list[bytes]]] = {}  # git dir: (its index's stat, its paths)
_indexes_lock = threading.Lock()


class _Tracked:
    """The paths a repository's index lists (`.git/index`, read here, as ignores.py reads the ignore
    files, not asked of git), read when a walk first asks about that repository, and kept, for as
    long as the file is the same, for the next walk."""

    def __init__(self) -> None:
        self.paths: dict[str, list[bytes]] = {}

    def under(self, top: str, rel: str) -> bool:
        """Whether the index of the repository at `top` lists a path under its folder `rel`."""
        if (paths := self.paths.get(top)) is None:
            paths = self.paths[top] = _index_paths(Path(top, ".git"))
        prefix = os.fsencode(rel) + b"/"
        i = bisect_left(paths, prefix)
        return i < len(paths) and paths[i].startswith(prefix)


def _index_paths(dot_git: Path) -> list[bytes]:
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
