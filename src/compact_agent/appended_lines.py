"""Appending a line to a file of lines (the JSONL logs kept beside a session), never onto a torn one.

A run killed mid-append, or a short write to a full disk, leaves the file's last line without its
newline. The next line appended to it then joined it, and the two read back as one unreadable line:
the usage log lost the request made after the crash from `/cost`, the record of sent prompts the
prompt sent after it, the event log the event. `append_line` looks at the file's last byte first and
starts the line on a line of its own after a torn one: only the torn line is lost. The session file
has its own, stricter append (session/journal.py: the torn bytes are set aside, not left in place).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path


def append_line(path: Path, line: bytes, *, sync: bool = False) -> None:
    """Append `line` (ending in a newline) to the file at `path`, created 0600 if missing, after a
    newline where the file ends in a torn line; fsynced if `sync`. One write: a short one leaves a
    torn line, which the next append starts after. Raises OSError, also for a file that is not a
    regular file (a FIFO in its place, which would take lines until its buffer filled, then wait)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_NONBLOCK | os.O_CLOEXEC, 0o600)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        torn = st.st_size > 0 and os.pread(fd, 1, st.st_size - 1) != b"\n"
        os.write(fd, b"\n" + line if torn else line)
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)
