"""What a session leaves that nothing reads: the folder of one that saved nothing, and the temp
files a killed process left behind (store.py calls these)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from . import locks
from .files import remove_stale_temps


def remove_if_unused(root: Path, path: Path, folder: Path, event_log: Path) -> None:
    """After the store's lock is let go: a session that saved nothing (its file `path` absent:
    `-p /status`, a REPL left at once) leaves no `folder` behind. Its lock, its `event_log` (what
    the MCP servers said as they connected, of a session there is no file of: `sessions` listed the
    folder as the leftover of one whose file is gone) and its empty side folders go, and so does the
    project's folder `root` when no other session is in it (a first run in a directory made it);
    anything else written stays."""
    if path.exists():
        return
    if folder.is_dir():
        for own in (folder / locks.LOCK_FILE, event_log):
            with contextlib.suppress(OSError):
                own.unlink(missing_ok=True)
        for sub, _dirs, _files in sorted(os.walk(folder), key=lambda w: -len(w[0])):  # deepest first
            with contextlib.suppress(OSError):  # not empty: it holds something, and stays
                os.rmdir(sub)
    with contextlib.suppress(OSError):  # another session's files (or its lock) keep it
        os.rmdir(root)


def clean_stale_temps(root: Path, path: Path, archive_dir: Path, session_id: str, folder: Path) -> int:
    """Remove the temp files of the session `path` a crash left: they are never read, only clutter."""
    n = remove_stale_temps(root, f".{path.name}.")
    n += remove_stale_temps(archive_dir, f".{session_id}-")
    if folder.is_dir():
        for sub, _dirs, _files in os.walk(folder):
            n += remove_stale_temps(Path(sub))
    return n
