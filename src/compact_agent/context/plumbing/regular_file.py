"""Read a file the user did not hand us byte by byte: a config file, an instruction file, a file
kept beside a conversation (the library's collapse log, spilled tool results, session notes; the
terminal agent's plan, usage and checkpoints, through compact_agent.regular_file).

Such a path comes with a repository, so it can be anything git or a hostile `ln -s` makes it: a
FIFO (opening it waits for a writer for ever), `/dev/zero` (reading it never ends), `/dev/stdin`
(the piped prompt read as a config). Only a regular file is read, opened without blocking, and
never more than the caller's cap, so no path can hang start-up or fill memory.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

__all__ = ["OWN_FILE_CAP", "NotRegular", "TooLarge", "open_regular", "read_capped", "read_own"]


#: The most a file kept beside a session (its plan, what was read, the layers' decisions and logs,
#: the usage of its requests, its notes) is read up to: far past what a session writes.
OWN_FILE_CAP = 256 * 1024 * 1024


class NotRegular(OSError):
    """The path is a FIFO, a device, a socket or a directory: not read."""


class TooLarge(OSError):
    """The file is longer than the cap."""


def open_regular(path: Path, *, follow_links: bool = True) -> BinaryIO:
    """The regular file `path`, opened once for reading: what is read comes from the descriptor
    checked, so nothing swapped in after a caller's own check (a FIFO, a device, a link) is read.

    Opened without blocking (a FIFO's open waits for no writer) and never as a controlling terminal
    (O_NOCTTY: a terminal swapped in, opened by a session leader, would become its own);
    FileNotFoundError when it is missing; NotRegular when the opened file is not a regular file, or,
    with `follow_links` False, when the path itself is a link (not followed, O_NOFOLLOW: a caller
    that checked where the path leads is not led elsewhere)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    if not follow_links:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        if not follow_links and e.errno == errno.ELOOP:
            raise NotRegular(errno.ELOOP, "a link, not followed", str(path)) from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegular(errno.EINVAL, "not a regular file", str(path))
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_capped(path: Path, cap: int, *, truncate: bool = False, follow_links: bool = True) -> bytes:
    """At most `cap` bytes of the regular file `path`.

    FileNotFoundError when it is missing; NotRegular when it is not a regular file (checked on the
    opened descriptor, so a swap after a check cannot slip a FIFO in), or a link and `follow_links`
    is False (its errno ELOOP); TooLarge when it is longer than `cap`, unless `truncate` asks for
    its first `cap` bytes instead.
    """
    chunks: list[bytes] = []
    size = 0
    with open_regular(path, follow_links=follow_links) as f:  # read in chunks: a read of cap + 1 at once takes that much memory first
        while size <= cap and (chunk := f.read(min(65_536, cap + 1 - size))):
            chunks.append(chunk)
            size += len(chunk)
    data = b"".join(chunks)
    if len(data) > cap:
        if not truncate:
            raise TooLarge(f"{path}: larger than {cap} bytes")
        data = data[:cap]
    return data


def read_own(path: Path) -> bytes:
    """The bytes of a file the agent keeps beside a session, read as `read_capped` reads: a FIFO or
    a device put in its place (a link to /dev/zero) is an unreadable file, not a resume that hangs
    or fills memory. The same errors as `read_capped`, all OSError: callers that warn of an
    unreadable file already catch them."""
    return read_capped(path, OWN_FILE_CAP)
