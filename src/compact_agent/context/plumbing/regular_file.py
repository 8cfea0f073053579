"""Read a file the user did not hand us byte by byte: a config file, an instruction file, a file
kept beside a conversation (the library's collapse log, spilled tool results, session notes; the
terminal agent's plan, usage and checkpoints, through compact_agent.regular_file).

Such a path comes with a repository, so it can be anything git or a hostile `ln -s` makes it: a
FIFO (opening it waits for a writer for ever), `/dev/zero` (reading it never ends), `/dev/stdin`
(the piped prompt read as a config). Only a regular file is read, opened without blocking, and
never more than the caller's cap, so no path can hang start-up or fill memory.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

__all__ = ["OWN_FILE_CAP", "NotRegular", "TooLarge", "read_capped", "read_own"]


#: The most a file kept beside a session (its plan, what was read, the layers' decisions and logs,
#: the usage of its requests, its notes) is read up to: far past what a session writes.
OWN_FILE_CAP = 256 * 1024 * 1024


class NotRegular(OSError):
    """The path is a FIFO, a device, a socket or a directory: not read."""


class TooLarge(OSError):
    """The file is longer than the cap."""


def read_capped(path: Path, cap: int, *, truncate: bool = False) -> bytes:
    """At most `cap` bytes of the regular file `path`.

    FileNotFoundError when it is missing; NotRegular when it is not a regular file (checked on the
    opened descriptor, so a swap after a check cannot slip a FIFO in); TooLarge when it is longer
    than `cap`, unless `truncate` asks for its first `cap` bytes instead.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegular(f"{path}: not a regular file")
        chunks: list[bytes] = []
        size = 0
        while size <= cap:
            chunk = os.read(fd, min(65_536, cap + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
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
