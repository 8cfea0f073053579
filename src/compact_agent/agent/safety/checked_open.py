"""Opening a path the fence has just checked, so that what is opened is what was checked.

The fence (permissions.py) judges the fully resolved path, and a file tool then opens it. Between
the two, a link swapped into the path — the file itself made a link to `~/.ssh/id_rsa`, or a folder
on the way made a link out of the project — would lead the open outside. So the file tools open
the checked path without following a link at its end (`O_NOFOLLOW`: the checked path had none, so
one there now was swapped in), and on Linux ask the system where the opened file really is
(`/proc/self/fd`), refusing when it is not the checked path: a folder on the way was swapped. On
other systems only the end is guarded (macOS's F_GETPATH spells a name as the disk keeps it, which
on a case-insensitive disk need not be the spelling that was checked).

A write goes the same way through the file's folder: the folder is opened and its real place
checked, the temp file's too, and the rename into place is made relative to the opened folder, so
it lands in the folder that was checked and replaces a link swapped in at the end instead of
writing through it. The folders a write makes on its way are made the same way (`make_folders`):
each inside the descriptor of the folder above it, the deepest one already there opened as checked,
so a folder swapped for a link out makes no folder outside. Nor is the working directory ever made
by a write: moved or deleted meanwhile, it is said (`workdir_gone`), not made again holding one file.

The names in a folder (a listing, grep's and glob's walk, the names a "did you mean" offers) are
read the same way (`names_in`): from the folder opened as checked, so a folder swapped for a link
out lists none of the names where it leads.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from ...regular_file import NotRegular

SWAPPED = "changed while it was being opened (a link was put in its way after the check)"

#: Called with the path between the check and the open: where a test swaps a link in.
before_open: Callable[[Path], None] | None = None


class Swapped(OSError):
    """What was opened is not the path the fence checked."""


def swapped(path: Path) -> Swapped:
    return Swapped(errno.EXDEV, SWAPPED, str(path))


def where_opened(fd: int) -> str | None:
    """Where the file open as `fd` really is, or None where the system does not say (not Linux,
    or no /proc)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None


def open_checked(path: Path, flags: int, mode: int = 0o666) -> int:
    """A descriptor of the resolved, checked `path`, opened with `flags`; Swapped when a link was
    put in its way since the check."""
    if before_open is not None:
        before_open(path)
    try:
        fd = os.open(path, flags | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0), mode)
    except OSError as e:
        # A link at the end (the checked path had none): ELOOP, or ENOTDIR where a folder was asked for.
        if e.errno == errno.ELOOP or (e.errno == errno.ENOTDIR and os.path.islink(path)):
            raise swapped(path) from None
        raise
    if (real := where_opened(fd)) is not None and real != os.fspath(path):
        os.close(fd)
        raise swapped(path)
    return fd


def open_read(path: Path) -> BinaryIO:
    """The regular file at the resolved, checked `path`, open for reading. Swapped as above;
    NotRegular when it is no regular file now (opened without blocking: a FIFO swapped in)."""
    fd = open_checked(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegular(errno.EINVAL, "not a regular file", str(path))
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def read_checked(path: Path) -> bytes:
    """The whole regular file at the resolved, checked `path` (see `open_read`)."""
    with open_read(path) as f:
        return f.read()


def open_folder(path: Path) -> int:
    """A descriptor of the resolved, checked folder `path` (Swapped as above), for a write in it."""
    return open_checked(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))


class WorkdirGone(OSError):
    """The working directory is not there now: moved or deleted while the session ran."""


def workdir_gone(cwd: Path) -> WorkdirGone | None:
    """Why no tool can work in the working directory `cwd` now (moved or deleted, or put back as a
    file), said for the model to tell the user; None while it is a folder."""
    if os.path.isdir(cwd):
        return None
    what = "is no longer a folder" if os.path.lexists(cwd) else "is gone (moved or deleted)"
    return WorkdirGone(errno.ENOENT, f"the working directory {cwd} {what}; no file can be read or written and no "
                                     "command run in it: tell the user, who can put it back, or start compact-agent "
                                     "again where the project is now", str(cwd))


def make_folders(folder: Path, under: Path | None = None) -> None:
    """Make the missing folders of the resolved, checked `folder`, for a write in it: the deepest
    one there is opened as checked (Swapped as above), and each missing one is made inside the
    descriptor of the one above it and opened without following a link (Swapped if one is there
    now), so none is made through a link swapped in since the check. Where the system cannot make
    a folder relative to a descriptor, they are made by path. With `under` (the working directory),
    a folder in it is made only below it: when it is not there, WorkdirGone (`workdir_gone`), and
    nothing is made, so a write never makes the working directory again around the one file."""
    if under is not None and folder.is_relative_to(under.resolve()) and (gone := workdir_gone(under)) is not None:
        raise gone
    if os.mkdir not in os.supports_dir_fd or os.open not in os.supports_dir_fd:
        folder.mkdir(parents=True, exist_ok=True)
        return
    missing: list[str] = []
    there = folder
    while not os.path.lexists(there) and there.parent != there:
        missing.append(there.name)
        there = there.parent
    if not missing:
        return  # the write opens it as checked
    fd = open_folder(there)
    try:
        for name in reversed(missing):
            there = there / name
            with contextlib.suppress(FileExistsError):  # made a moment ago by another: opened as below
                os.mkdir(name, dir_fd=fd)
            try:
                inner = os.open(name, _FOLDER_HERE, dir_fd=fd)
            except OSError as e:
                if e.errno == errno.ELOOP or (e.errno == errno.ENOTDIR and _is_link(name, fd)):
                    raise swapped(there) from None
                raise
            os.close(fd)
            fd = inner
    finally:
        os.close(fd)


def remove_file(path: Path) -> bool:
    """Remove the file or link at `path`, whose folder is resolved and checked (a link at its end is
    removed, not followed), from that folder opened as checked (Swapped as above): a folder swapped
    for a link out since removes nothing where it leads. False when no file or link is there (a
    folder, a FIFO are left). Where the system cannot remove relative to a descriptor, by path."""
    if os.unlink not in os.supports_dir_fd or os.stat not in os.supports_dir_fd:
        if path.is_file() or path.is_symlink():
            path.unlink()
            return True
        return False
    try:
        fd = open_folder(path.parent)
    except (FileNotFoundError, NotADirectoryError):  # no folder there now: nothing to remove
        return False
    try:
        try:
            mode = os.stat(path.name, dir_fd=fd, follow_symlinks=False).st_mode
        except FileNotFoundError:
            return False
        if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
            return False
        os.unlink(path.name, dir_fd=fd)
        return True
    finally:
        os.close(fd)


@dataclass(frozen=True)
class Entry:
    """A name in a folder listed by `names_in`, and what it is."""

    name: str
    is_dir: bool  # a folder, or a link to one
    is_link: bool


def names_in(folder: Path, limit: int | None = None) -> list[Entry]:
    """The entries of the resolved, checked `folder` (at most `limit`, in the system's order), read
    from a descriptor opened as checked (Swapped as above), so a link swapped in since the check
    lists no name of where it leads. An entry that cannot be looked at as it is listed (gone since)
    is left out. Where the system cannot list a descriptor, the folder is listed by its path."""
    if os.scandir not in os.supports_fd:
        return _entries(folder, limit)
    fd = open_folder(folder)
    try:
        return _entries(fd, limit)  # while the descriptor is open: a link's target is looked at through it
    finally:
        os.close(fd)


def _entries(where: int | Path, limit: int | None) -> list[Entry]:
    out: list[Entry] = []
    with os.scandir(where) as it:
        for e in it:
            if limit is not None and len(out) >= limit:
                break
            try:
                out.append(Entry(e.name, e.is_dir(), e.is_symlink()))
            except OSError:
                continue
    return out


_FOLDER_HERE = (os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
                | getattr(os, "O_CLOEXEC", 0))


def _is_link(name: str, fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode)
    except OSError:
        return False
