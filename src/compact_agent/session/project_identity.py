"""The sessions of a project that was moved or renamed since they were saved.

A project's sessions are kept in a folder named from its path (files.project_slug): after
`mv ~/src/app ~/work/app2`, `-c` and `-r` in the project found nothing, and nothing said where the
sessions had gone.

What tells that a folder is the project the sessions were saved in is the folder itself: a move or a
rename in the same file system keeps its device, its inode and its birth time (when the file system
made it), which together name that folder and no other, wherever it is now. The inode alone does
not: a folder deleted leaves its number free, and ext4 gives it to the next folder made in the same
parent (`rm -r app1; mkdir app2` gave app2 app1's inode, born in the same second), whose birth time
is then later, in nanoseconds. It costs a stat and a statx, no more. Not chosen:
- a git repository's first commit: every clone and worktree of it has the same, a folder that is no
  repository has none, and finding it walks the whole history (seconds in a large one);
- a file of ours written in the project: it would show in `git status` and go with every copy;
- the folder's name: two checkouts named `app` are two projects.

Each project's sessions folder holds what identified its project, in `.project.json` ("path",
"device", "inode", "born"), written by `remember` when a run finds sessions there and the file says
nothing or names this folder by another path. A new folder at the path the file names (`mv app
app2; mkdir app`) does not make them its own: when the folder they were saved for is found beside
it (renamed in its parent), they are handed to it (`owner_elsewhere`); otherwise they are read where
they are and the file is left naming that folder, whose run takes them (`moved_here`), and, where no
birth time tells the two folders apart, the file names the new one, which takes them as a project
at that path always did. `project-ids/<device>-<inode>-<born>`, beside
`projects/`, names that sessions folder. A run in a folder without sessions of its own looks there (`moved_here`) for
a sessions folder whose .project.json names this very folder by another path: that folder is then
this path's (options.session_root renames it, as it renames the folders earlier versions named),
and `-c` and `-r` say so once. Where the birth time cannot be read (a file system that does not
keep it), nothing is taken on the inode alone.

Moved to another file system (a new folder, copied), saved by a version that wrote no
.project.json, or where no birth time tells the folder from another made with its inode, the
sessions are not taken: when `-c` and `-r` find none, they say in one line where those of a project
of the same name (or of a folder with this one's inode) are kept, and how to open them here
(`elsewhere`): the command that moves their folder to this one's name.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from .. import secrets
from ..words import plural
from .files import NEW_NAME, atomic_write, list_sessions, readable

#: The file in a project's sessions folder that says which folder the project is (hidden: `analyze`
#: pointed at the sessions passes over it, as over every hidden file).
FILE = ".project.json"
#: The folder beside `projects/` that names, for each project folder by its device, inode and birth
#: time, the sessions folder saved for it: a run in a folder without sessions reads one file, not
#: the identity of every project (a home of a thousand projects took 0.1 s a call). Not in
#: `projects/`, whose every folder is a project's.
INDEX = "project-ids"
_KEYS = ("device", "inode", "born")


def identity(cwd: Path) -> dict[str, Any] | None:
    """What identifies the folder `cwd` (resolved): its path, device, inode and birth time (None
    where the file system keeps none); None when it cannot be looked at."""
    try:
        path = cwd.resolve()
        st = path.stat()
    except (OSError, RuntimeError):
        return None
    return {"path": str(path), "device": st.st_dev, "inode": st.st_ino, "born": _born(path, st)}


def remember(root: Path, cwd: Path) -> None:
    """Write `cwd`'s identity in its sessions folder `root`, and `root`'s name in the index, when
    `root` holds sessions and either says otherwise or nothing (a home that cannot be written keeps
    what it has)."""
    now = identity(cwd)
    if now is None:
        return
    data = secrets.redact_bytes(json.dumps(now).encode())  # as atomic_write saves it (a key in the path)
    said, indexed = _read(root / FILE) == data, now["born"] is None or _indexed(root.parent, now) == root.name
    if said and indexed or not root.is_dir() or root.is_symlink() or not list_sessions(root) or _replaced(root, now):
        return
    with contextlib.suppress(OSError):
        if not said:
            atomic_write(root / FILE, data)
        if not indexed:
            atomic_write(root.parent.parent / INDEX / index_name(now), root.name.encode())


def recorded(root: Path) -> dict[str, Any] | None:
    """The identity the sessions folder `root` holds; None when it holds none that can be read."""
    try:
        data = json.loads(_read(root / FILE))
    except (ValueError, RecursionError):  # `[[[[…` past the parser's depth: none that can be read either
        return None
    if not isinstance(data, dict) or not isinstance(data.get("path"), str) or \
            not all(isinstance(data.get(k), int) or (k == "born" and data.get(k) is None) for k in _KEYS):
        return None
    return data


def moved_here(projects: Path, cwd: Path) -> tuple[Path, str] | None:
    """The sessions folder in `projects` saved for the folder `cwd` is, by another path (it was
    moved or renamed), and that path; None when there is none, or its birth time is not known. The
    index only points: the folder's own file must name this folder (a project found since at the
    path it names took its sessions, and the file names that one)."""
    now = identity(cwd)
    if now is None or now["born"] is None or not (name := _indexed(projects, now)):
        return None
    folder = projects / name
    if name.startswith(".") or name != folder.name or not folder.is_dir() or folder.is_symlink():
        return None
    was = recorded(folder)
    if was is None or was["path"] == now["path"] or any(was[k] != now[k] for k in _KEYS) or _still_there(was) \
            or not list_sessions(folder):
        return None
    return folder, was["path"]


def _replaced(root: Path, now: dict[str, Any]) -> dict[str, Any] | None:
    """The identity `root` records when it names another folder by the path of `now` (that folder
    was moved or renamed, or removed, and a new one made at its path), each known by its birth time;
    None otherwise. The record is then left as it is: the folder it names, wherever it is now, finds
    its sessions by it (`moved_here`); written over, they were the new folder's, and the one they
    were saved for found none."""
    was = recorded(root)
    if was is None or was["born"] is None or now["born"] is None or was["path"] != now["path"] \
            or all(was[k] == now[k] for k in _KEYS):
        return None
    return was


def owner_elsewhere(root: Path, cwd: Path) -> Path | None:
    """The folder the sessions in `root` (`cwd`'s sessions folder by its path) were saved for, when
    that is another folder, renamed since within its parent (`mv app app2; mkdir app`): found among
    the entries of that parent by its device, inode and birth time. None otherwise (the sessions are
    then read where they are, and `remember` leaves their record for that folder to find them)."""
    now = identity(cwd)
    was = _replaced(root, now) if now is not None else None
    if was is None:
        return None
    path = Path(was["path"])
    try:
        with os.scandir(path.parent) as entries:
            found = [Path(e.path) for e in entries if e.inode() == was["inode"] and e.path != was["path"]
                     and e.is_dir(follow_symlinks=False)]
    except OSError:
        return None
    for folder in found:
        if (it := identity(folder)) is not None and all(it[k] == was[k] for k in _KEYS):
            return Path(it["path"])
    return None


def _read(path: Path) -> bytes:
    """The start of our small file `path`; b"" when it cannot be read."""
    try:
        with open(path, "rb") as f:
            return f.read(8192)
    except OSError:
        return b""


def index_name(now: dict[str, Any]) -> str:
    """The name of the file in the index that names the sessions folder of the folder `now` identifies."""
    return f"{now['device']}-{now['inode']}-{now['born']}"


def _indexed(projects: Path, now: dict[str, Any]) -> str:
    """The name of the sessions folder the index gives for the folder `now` identifies ('' for none)."""
    try:
        with open(projects.parent / INDEX / index_name(now), "rb") as f:
            return f.read(1024).decode("utf-8", "replace").strip()
    except OSError:
        return ""


def elsewhere(projects: Path, cwd: Path, root: Path) -> str | None:
    """One line on the sessions kept elsewhere that may be `cwd`'s (sessions folder `root`, which
    has none) and how to open them: those saved for a folder of its name, or for the folder with its
    inode (one whose birth time is not known); the newest such folder's. None when there are none."""
    now = identity(cwd)
    if now is None:
        return None
    name = Path(now["path"]).name
    gone: list[tuple[Path, str | None]] = []
    there: list[tuple[Path, str]] = []
    for folder, was in _folders(projects):
        if folder.name == root.name or not list_sessions(folder):
            continue
        if was is not None and (Path(was["path"]).name == name or
                                (was["device"], was["inode"]) == (now["device"], now["inode"])):
            (there if Path(was["path"]).is_dir() else gone).append((folder, was["path"]))
        elif was is None and name and _named(folder.name, name):
            gone.append((folder, None))
    if gone:
        folder, path = max(gone, key=lambda f: _newest(f[0]))
        n = len(list_sessions(folder))
        one = n == 1
        whose = f"saved in {path}, which is no longer there," if path is not None else f"of a project also named {name}"
        how = (f"mv {shlex.quote(str(folder))} {shlex.quote(str(root))}" if not root.exists() else
               f"moving what that folder holds into {root}")
        return (f"{plural(n, 'session')} {whose} {'is' if one else 'are'} kept in {folder}: {how} makes "
                f"{'it' if one else 'them'} this folder's")
    if there:
        folder, path = max(there, key=lambda f: _newest(f[0]))
        n = len(list_sessions(folder))
        return (f"{plural(n, 'session')} of another folder named {name} {'is' if n == 1 else 'are'} kept for {path}: "
                f"compact-agent --cwd {shlex.quote(path)} -c goes on there")
    return None


def _folders(projects: Path) -> list[tuple[Path, dict[str, Any] | None]]:
    """Each sessions folder in `projects` (no link) and the identity it holds."""
    try:
        folders = [p for p in projects.iterdir() if not p.name.startswith(".") and p.is_dir() and not p.is_symlink()]
    except OSError:  # no projects folder yet
        return []
    return [(p, recorded(p)) for p in folders]


def _still_there(was: dict[str, Any]) -> bool:
    """Whether the path the identity `was` names is still that folder (another path to it: a bind
    mount), whose sessions those are."""
    try:
        st = os.stat(was["path"])
    except (OSError, ValueError):
        return False
    return (st.st_dev, st.st_ino) == (was["device"], was["inode"])


def _named(folder: str, name: str) -> bool:
    """Whether the sessions folder `folder` was named for a path that ends with the folder `name`."""
    part, want = NEW_NAME.sub("", folder), readable(name)
    return part == want or part.endswith(f"-{want}")


def _newest(folder: Path) -> float:
    sessions = list_sessions(folder)
    try:
        return sessions[0].stat().st_mtime if sessions else 0.0
    except OSError:
        return 0.0


def _born(path: Path, st: os.stat_result) -> int | None:
    """When the file system made `path`, in nanoseconds; None where it keeps no such time."""
    if (ns := getattr(st, "st_birthtime_ns", None)) is not None:
        return int(ns)
    if (seconds := getattr(st, "st_birthtime", None)) is not None:  # macOS, the BSDs
        return int(seconds * 1_000_000_000)
    statx = _statx()
    if statx is None:
        return None
    import ctypes

    buf = ctypes.create_string_buffer(256)  # struct statx
    if statx(-100, os.fsencode(path), 0, _STATX_BTIME, buf) != 0:  # AT_FDCWD
        return None
    raw = buf.raw
    if not int.from_bytes(raw[0:4], sys.byteorder) & _STATX_BTIME:  # stx_mask: the file system gave none
        return None
    seconds = int.from_bytes(raw[80:88], sys.byteorder, signed=True)  # stx_btime.tv_sec
    return seconds * 1_000_000_000 + int.from_bytes(raw[88:92], sys.byteorder)  # + tv_nsec


_STATX_BTIME = 0x800


@functools.cache
def _statx() -> Any:
    """The C library's statx (Linux, glibc 2.28 and later); None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        fn = ctypes.CDLL(None, use_errno=True).statx
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_uint, ctypes.c_char_p]
    fn.restype = ctypes.c_int
    return fn
