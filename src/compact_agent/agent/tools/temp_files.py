"""The temp files being written now (file_state.atomic_write_bytes), removed however the agent ends.

A write goes to `.<name>.<hex>.tmp` beside its file and is then renamed over it; a write that fails,
or that Ctrl-C cuts short (its KeyboardInterrupt unwinds the write), removes its temp itself. A
SIGTERM or SIGHUP ends the agent at once, by the signal's default action (stop_signals.py), and no
clean-up of the write runs: the temp of a file tool's write or of `/rewind`'s restore stayed in the
user's project, as large as the write, and nothing removed it (the session folder's temps go at its
next lock; a project's are not ours to sweep). So the signal's handler removes the temps listed
here (`remove_all`) before it ends the process, as it kills shell_groups' commands.

Only the file the write created goes: one whose device and inode are not the temp's (renamed into
place already, or another file by that name since) is left alone. `remove_all` is quick and waits
on nothing.

Nothing here imports pydantic-ai: stop_signals.py loads this module before anything heavy is loaded.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

#: The temps being written: (path, or name in the folder open as dir_fd; dir_fd; device; inode).
_writing: set[tuple[str, int | None, int, int]] = set()


@contextlib.contextmanager
def being_written(path: str, fd: int, dir_fd: int | None = None) -> Iterator[None]:
    """The temp at `path` (a name in the folder open as `dir_fd`, when given), which the caller
    created and holds open as `fd`, is removed if the agent ends within the block. The block ends
    before `fd` and `dir_fd` are closed, and after the rename that puts the temp in place."""
    st = os.fstat(fd)
    entry = (path, dir_fd, st.st_dev, st.st_ino)
    _writing.add(entry)
    try:
        yield
    finally:
        _writing.discard(entry)


def remove_all() -> None:
    """Remove the temps being written: each only while the file at its path is still the one created."""
    for path, dir_fd, dev, ino in tuple(_writing):
        with contextlib.suppress(OSError):  # gone already, or the folder is: nothing of ours is left there
            st = os.stat(path, dir_fd=dir_fd, follow_symlinks=False)
            if (st.st_dev, st.st_ino) == (dev, ino):
                os.unlink(path, dir_fd=dir_fd)
