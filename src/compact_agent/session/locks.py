"""Whether another process holds a session, asked before the REPL shows anything.

`SessionStore.lock` (store.py) takes an flock on `<root>/<id>/lock` when the session is built; the
REPL builds it while its prompt is up (repl_start.py), so a session in use was found out only
seconds after the user had started typing into a prompt that then went away. `check_free` asks
the same lock, cheaply (no pydantic-ai import), and lets go of it at once: the store takes it for
good when the session is built, and refuses then if another process took it in between.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from .files import SessionLocked

#: The lock file in a session's folder (SessionStore.lock).
LOCK_FILE = "lock"


def in_use_message(session_id: str) -> str:
    """SessionStore.lock's words for a session another process holds."""
    return (f"session {session_id} is in use by another compact-agent process"
            " (wait for it to finish, or start a new session without --continue/--resume)")


def check_free(root: Path, session_id: str) -> None:
    """Raise SessionLocked when another process holds session `session_id` of `root`."""
    try:
        fd = os.open(root / session_id / LOCK_FILE, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return  # no lock file, nobody holds it; anything else the store says when it opens it
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise SessionLocked(in_use_message(session_id)) from None
        fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
