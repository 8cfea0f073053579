"""A session's lock: taken for good by the run that writes it, or asked about before the REPL starts.

`SessionStore.lock` (store.py) takes an flock on `<root>/<id>/lock` (`take`) when the session is
built, and lets go of it when the run ends (`release`). The REPL builds it while its prompt is up
(repl_start.py), so a session in use was found out only seconds after the user had started typing
into a prompt that then went away. `check_free` asks the same lock, cheaply (no pydantic-ai
import), and lets go of it at once: the store takes it for good when the session is built, and
refuses then if another process took it in between. A prompt saved before its session is built
(print mode's, the REPL's message typed while it is built: journal.py) is saved under the same
lock, and it is kept (`keep`) until the store takes it over (`take`): a run refused as in use then
is refused before it writes anything, not after its prompt joined another run's turn. All live
here, apart from the store, so the one lock and its words are in one place.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from .files import SessionError, SessionLocked, ensure_private_dir, file_in_the_way, in_the_way

#: The lock file in a session's folder (`take`, SessionStore.lock).
LOCK_FILE = "lock"

#: Session folder -> the lock this process took before its store existed (`keep`), for `take`.
_KEPT: dict[Path, int] = {}


def in_use_message(session_id: str, pid: int | None = None, *, cli: bool = True) -> str:
    """The words for a session another process holds (`take`, `check_free`, journal.py), with that
    process's id (`holder`) when it is known: which of the user's runs to end, and how. `cli` False:
    for a program that locks a `SessionStore` itself, which has no REPL or --continue to name."""
    if not cli:
        return (f"session {session_id} is in use by another process{'' if pid is None else f', pid {pid}'} "
                "(it holds the session's lock until its unlock() or its end): wait for it, or use another session")
    if pid is None:
        return (f"session {session_id} is in use by another compact-agent process"
                " (wait for it to finish, or start a new session without --continue/--resume)")
    return (f"session {session_id} is in use by another compact-agent process, pid {pid} (wait for it to finish, "
            "or leave it: /exit in its REPL; or start a new session without --continue/--resume)")


def holder(folder: Path) -> int | None:
    """The id of the process that holds the lock of session folder `folder`, as it wrote it in the
    lock file (`hold`), when that process is still running; None when it cannot be told (an
    earlier version wrote none, a file that says something else, a process ended since)."""
    try:
        fd = os.open(folder / LOCK_FILE, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        said = os.read(fd, 32).decode("ascii", "replace").strip()
    except OSError:
        return None
    finally:
        os.close(fd)
    if not said.isdecimal() or not 0 < (pid := int(said)) < 2**31 or pid == os.getpid():
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except OSError:  # another user's process (EPERM): running all the same
        return pid
    return pid


def in_use_here(session_id: str, staying_in: str) -> str:
    """The words for it when the REPL's `/resume` asks for it: no command-line flags to leave out
    there, and the REPL goes on in its own session (`staying_in`)."""
    return (f"session {session_id} is in use by another compact-agent process (wait for it to finish, then "
            f"/resume it); this REPL goes on in session {staying_in}")


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
            raise SessionLocked(in_use_message(session_id, holder(root / session_id))) from None
        fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def take(folder: Path, session_id: str, root: Path, *, cli: bool = True) -> int:
    """Lock session `session_id` (its folder `folder`, in `root`) for good: the lock file's open
    descriptor, this process's id written in it (`hold`): the one `keep` kept when this process took
    it already, before the session was built. Raises SessionLocked when another process holds it."""
    fd = kept(folder)
    if fd is not None and not _same_file(folder / LOCK_FILE, fd):  # its file is gone: it locks nothing
        release(fd)
        fd = None
    if fd is None:
        fd = hold(folder, session_id, root)
    if fd is None:
        raise SessionLocked(in_use_message(session_id, holder(folder), cli=cli))
    return fd


def hold(folder: Path, session_id: str, root: Path) -> int | None:
    """Lock session `session_id` (its folder `folder`, in `root`, made when missing): the lock
    file's open descriptor, this process's id written in it (`mark_holder`), for `release`; None
    when another process holds it. Raises SessionError
    when the lock file cannot be opened. `take` keeps it for the run; journal.py, while it writes
    a typed message before the session is built.

    A lock file removed between its opening and its locking (`sessions --delete` held it, and
    removed the session's folder) locks nothing another process can see: the lock is taken again on
    the file made anew, or two runs could each hold one in the same session.
    """
    for _ in range(5):
        try:
            ensure_private_dir(folder)
            fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as e:  # a file where the session's folder goes (or the project's): what to do about it
            if (blocking := file_in_the_way(folder)) is not None:
                raise SessionError(in_the_way(blocking)) from None
            raise SessionError(f"cannot open session {session_id} in {root}: {e.strerror or e}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return None
        if _same_file(folder / LOCK_FILE, fd):
            mark_holder(fd)
            return fd
        os.close(fd)
    raise SessionError(f"cannot open session {session_id} in {root}: its lock file "
                       "was removed each time it was taken")


def mark_holder(fd: int) -> None:
    """Write this process's id in the lock file open at `fd`, which it holds: a run refused as the
    session is in use names it (`holder`)."""
    with contextlib.suppress(OSError):
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)


def keep(folder: Path, fd: int) -> None:
    """Keep the lock `hold` returned on session folder `folder` until `take` (the store) takes it
    over, or `kept` is asked for it (a prompt saved early and taken back). A lock taken again in
    the same process on another descriptor would be refused, as another process's is."""
    _KEPT[_key(folder)] = fd


def kept(folder: Path) -> int | None:
    """The lock `keep` kept on session folder `folder` (None: none), no longer kept: the caller's."""
    return _KEPT.pop(_key(folder), None)


def kept_here(folder: Path) -> int | None:
    """The lock `keep` kept on session folder `folder`, kept still (None: none)."""
    return _KEPT.get(_key(folder))


def _key(folder: Path) -> Path:
    try:
        return folder.resolve()
    except OSError:
        return folder.absolute()


def release(fd: int) -> None:
    """Let go of a lock `take` returned (a failure to is the end of the process's hold anyway)."""
    with contextlib.suppress(OSError):
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _same_file(path: Path, fd: int) -> bool:
    """Whether `path` names the file open at `fd` (not removed, nor replaced, since it was opened)."""
    try:
        at, held = os.stat(path), os.fstat(fd)
    except OSError:
        return False
    return (at.st_dev, at.st_ino) == (held.st_dev, held.st_ino)
