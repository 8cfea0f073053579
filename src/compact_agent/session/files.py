"""Writing files that survive a crash: private folders and files, atomic rewrites, stale temps.

Every rewrite goes to a temp file that is fsynced and renamed, the folder fsynced after; a failure
raises `SessionWriteError`, one line naming the file, and leaves what was there untouched. Used by
the session store and by everything else the agent saves (todos, checkpoints, state).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import stat
import uuid
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from .. import crashpoints, secrets
from ..words import plural


class SessionError(RuntimeError):
    """A session problem the user can act on (locked, unwritable, not found)."""


class SessionLocked(SessionError):
    """Another process holds the session's lock."""


def in_the_way(path: object) -> str:
    """What to say of a file where a folder must be (a session's, the project's sessions folder)."""
    return f"{path} is a file where compact-agent needs a folder; move it away or remove it"


def file_in_the_way(folder: Path) -> Path | None:
    """The file on the way to `folder` that keeps it from being made (`folder` or a parent of it
    that is no folder), or None."""
    return next((p for p in (folder, *folder.parents) if p.exists() and not p.is_dir()), None)


class SessionWriteError(SessionError, OSError):
    """A session, archive or side file could not be written (disk full, permission denied).

    Also an `OSError`, so code that guards a write with `except OSError` (the compactor refusing to
    rewrite after a failed archive) keeps working; the message is one line that names the file.
    """

    def __str__(self) -> str:  # OSError would print "[Errno N] ..." and drop the file and the advice
        return str(self.args[0]) if self.args else super().__str__()


def _write_error(what: str, path: Path, e: OSError) -> SessionWriteError:
    err = SessionWriteError(f"could not write {what} {path}: {e.strerror or e}; what was saved before is intact")
    err.errno = e.errno
    err.strerror = e.strerror
    return err


def project_slug(cwd: Path) -> str:
    """The folder name of a working directory's sessions: the end of its path made readable, and a
    hash of the whole path, so that `my_app` and `my-app` (or `a.b` and `a-b`) never share sessions,
    checkpoints or prompt history. Without the hash they did: `-c` went on with the other folder's
    conversation, and `/rewind` restored files in the other folder.

    What looks like a key in the path (`~/proj/sk-proj-…`: `secrets.key_shaped_at`) is `REDACTED` in
    the readable part: the folder's name is in every path of an archive or a spilled result shown
    to the user or the model. By its shape, not by the keys this process knows: the name is the same
    whichever key a run has (another provider's, the key after it was rotated), or none, so every
    run finds the same folder. The hash is of the path as it is, so two directories that differ only
    in the key they hold still get two folders; a path with nothing of that shape keeps the name it
    always had."""
    path = str(cwd.resolve())
    return f"{readable(secrets.keys_cut(path, 'REDACTED'))[-100:]}-{path_hash(path)}"


def path_hash(path: str) -> str:
    """The end of every name `project_slug` gave `path`'s folder, in this version and the earlier
    ones (which had the key in the readable part whole, or `REDACTED` where a registered key stood)."""
    return hashlib.sha256(os.fsencode(path)).hexdigest()[:12]


def readable(path: str) -> str:
    """`path` with each run of characters other than letters and digits made one `-`."""
    return re.sub(r"[^A-Za-z0-9]+", "-", path).strip("-") or "root"


NEW_NAME = re.compile(r"-[0-9a-f]{12}$")
"""How a folder `project_slug` named ends: the hash of the path."""


def legacy_slug(cwd: Path) -> str:
    """The folder name earlier versions used: the readable part alone (see `project_slug`), a key
    in the path whole in it (the name they made, to be found)."""
    return readable(str(cwd.resolve()))[-120:]


def plain_id(session_id: object) -> str:
    """`session_id`, where it can name a store's files inside its folder (`<id>.jsonl`, `<id>/`): a
    library program's `SessionStore(folder, "../escape")` wrote beside the folder, wherever `../` led."""
    if not isinstance(session_id, str):
        raise TypeError(f"SessionStore: the conversation id must be a str, not {type(session_id).__name__}")
    size = len(session_id.encode("utf-8", "surrogateescape"))
    why = ("is empty" if not session_id else "holds '/'" if "/" in session_id else "holds '\\'" if "\\" in session_id
           else "holds a NUL" if "\0" in session_id else "starts with '.'" if session_id.startswith(".")
           else f"is {size} bytes long" if size > 249 else "")  # 255 with ".jsonl", a file name's most
    if why:
        raise ValueError(f"SessionStore: the conversation id {session_id!r} {why}: it names the store's files in "
                         "its folder, so it must be a plain file name (no '/', '\\' or NUL, not starting with '.', "
                         "at most 249 bytes)")
    return session_id


def ensure_private_dir(path: Path) -> Path:
    """`path` as a 0700 folder; every parent it has to create is 0700 too (`mkdir(parents=True)`
    would make those 0755 under the usual umask, and then anyone could list the project paths)."""
    missing: list[Path] = []
    p = path
    while not p.exists() and p != p.parent:
        missing.append(p)
        p = p.parent
    for d in reversed(missing):
        with contextlib.suppress(FileExistsError):
            d.mkdir(mode=0o700)
        with contextlib.suppress(OSError):
            os.chmod(d, 0o700)
    path.mkdir(exist_ok=True, mode=0o700)
    with contextlib.suppress(OSError):
        os.chmod(path, 0o700)
    return path


def ensure_private_file(path: Path) -> Path:
    """`path` exists and is 0600 (for files written by others' code, like the prompt history).
    Raises OSError for a file that is not a regular file: a FIFO in its place held the REPL at start
    (the history) or after a prompt was sent (the record of sent prompts), waiting for a reader."""
    ensure_private_dir(path.parent)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_NONBLOCK | os.O_CLOEXEC, 0o600)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
    finally:
        os.close(fd)
    with contextlib.suppress(OSError):
        os.chmod(path, 0o600)
    return path


def atomic_write(path: Path, data: bytes, mode: int = 0o600, point: str = "write") -> None:
    """Write to a temp file beside `path`, fsync it, then rename over `path`.

    A reader, or the next process after a crash, sees the old file or the new one, never half of
    one; a crash can only leave a `.<name>.<hex>.tmp` behind, which `SessionStore.lock` removes.
    `point` names the crash points (`<point>.partial/.synced/.renamed`, see `crashpoints`).
    """
    ensure_private_dir(path.parent)
    data = secrets.redact_bytes(data)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        try:
            crashpoints.write_in_two(fd, data, point)
            os.fsync(fd)
        finally:
            os.close(fd)
        crashpoints.hit(f"{point}.synced")
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    crashpoints.hit(f"{point}.renamed")
    _fsync_dir(path.parent)


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def remove_stale_temps(folder: Path, prefix: str = ".", *, ours: Callable[[str], object] | None = None) -> int:
    """Delete `<prefix>*.tmp` files a killed writer left in `folder` (with `ours`: the files whose
    name it accepts); returns how many.

    Only safe while no other process writes there with such a name, and when no file of the user's
    can have one: the session lock guarantees the first for the session's own files.
    """
    n = 0
    with contextlib.suppress(OSError):
        for p in folder.iterdir():
            if (ours(p.name) if ours is not None else p.name.startswith(prefix) and p.name.endswith(".tmp")) \
                    and p.is_file():
                with contextlib.suppress(OSError):
                    p.unlink()
                    n += 1
    return n


def list_sessions(root: Path) -> list[Path]:
    """Session files of one project, newest first."""
    if not root.exists():
        return []
    stamped: list[tuple[float, Path]] = []
    for p in root.glob("*.jsonl"):
        with contextlib.suppress(OSError):
            if p.is_file() and not p.name.startswith("."):
                stamped.append((p.stat().st_mtime, p))
    return [p for _, p in sorted(stamped, key=lambda t: t[0], reverse=True)]


def as_copied(given: str, root: Path) -> str:
    """The session id in what `-r` or `sessions --delete` was given as a user copies it: with spaces
    around it, as the session's file is named (`ID.jsonl`, as the sessions folder `compact-agent
    sessions` names shows it), or as that file's path in this or another project's sessions folder
    (whose refusal then names that project). Anything else as given: a path elsewhere names none."""
    wanted = given.strip() or given
    if not wanted.endswith(".jsonl") or (root / f"{wanted}.jsonl").is_file():  # an id that ends so: its own
        return wanted
    path = Path(wanted)
    if len(path.parts) == 1:
        return path.stem
    try:
        in_a_sessions_folder = path.resolve().parent.parent == root.parent.resolve()
    except (OSError, RuntimeError):  # a loop of links, a name too long
        return wanted
    return path.stem if in_a_sessions_folder else wanted


def new_session_id() -> str:
    return datetime.now().strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]


def size_text(n: int) -> str:
    """`1.2 MB`, `340 KB`, `512 bytes`."""
    for unit, size in (("GB", 2**30), ("MB", 2**20), ("KB", 2**10)):
        if n >= size:
            return f"{n / size:,.1f} {unit}"
    return plural(n, "byte")
