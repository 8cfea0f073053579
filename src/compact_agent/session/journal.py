"""Appending entries to a session file without losing a byte the file held, and the entry that
keeps a typed message from the moment it is entered.

Shared by the store (store.py) and the REPL, which saves what the user typed while the session is
still being built: nothing here imports pydantic-ai, so that write does not wait for it.

A line torn by a crash (the process died mid-append) is never a saved entry, and left in place it
would warn on every load. It is cut off before the next append, but only after its bytes were
copied, fsynced, into the session's `set-aside/` folder: they may be all that is left of what the
user's session held (a prompt, a half-written answer).

A typed message is saved as a `prompt` entry the moment it is entered, before the turn (and, in
the REPL's first seconds, before the session) exists; a kill at any later instant leaves it on disk.
The message entry that later carries it to the model names it (`"prompt": <its id>`), and a turn that
ended without sending it (interrupted) says so with a `prompt` entry `{"unsent": <id>}`; a prompt
entry that is neither — the process died first — is read back as the user's message, unanswered.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import uuid
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .. import crashpoints, secrets
from ..words import plural
from . import locks, remembered
from .files import SessionError, SessionLocked, _fsync_dir, atomic_write, ensure_private_dir
from .locks import in_use_message
from .not_a_session import refuse_if_not_a_session

FORMAT_VERSION = 1

#: The folder in a session's side folder (`<root>/<id>/`) that keeps the bytes of torn lines.
SET_ASIDE = "set-aside"

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def now_iso() -> str:
    return datetime.now(UTC).isoformat()


def utf8_safe(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD.

    JSON may escape one (`"\\ud800"`) and a provider may send one, and Python strings hold it,
    but UTF-8 cannot: left in, it fails every later write and request. The rest is kept as is.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _LONE_SURROGATE.sub("\ufffd", text)
    return text


def encode(entries: Iterable[dict[str, Any]]) -> bytes:
    """Entries as JSON lines, the API key redacted, lone surrogates made U+FFFD."""
    return utf8_safe(secrets.redact("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries))).encode()


def new_entry(kind: str, payload: dict[str, Any], parent: str | None, time: str) -> dict[str, Any]:
    return {"v": FORMAT_VERSION, "id": uuid.uuid4().hex[:12], "parent": parent, "time": time, "kind": kind,
            **payload}


def _last_line_start(fd: int, size: int) -> int:
    """Where the last line of the file begins (after the last newline; 0 when there is none)."""
    start = size
    while start > 0:
        chunk_start = max(0, start - 65_536)
        chunk = os.pread(fd, start - chunk_start, chunk_start)
        nl = chunk.rfind(b"\n")
        if nl >= 0:
            return chunk_start + nl + 1
        start = chunk_start
    return 0


def _is_entry(line: bytes) -> bool:
    try:
        json.loads(line)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return False
    return True


def torn_tail(fd: int) -> tuple[int, bytes] | None:
    """(where it starts, its bytes) of a last line that a crash tore; None when the file ends with
    a newline or its last line is a complete entry that only lacks one (a hand-edited file)."""
    size = os.fstat(fd).st_size
    if not size or os.pread(fd, 1, size - 1) == b"\n":
        return None
    start = _last_line_start(fd, size)
    tail = os.pread(fd, size - start, start)
    return None if _is_entry(tail) else (start, tail)


def set_aside(side_dir: Path, data: bytes, stamp: datetime | None = None) -> Path:
    """Keep `data` (an unreadable last line's bytes) in `<side_dir>/set-aside/`, fsynced; its path.
    Named for what it is: `torn-line-*.bin` when it begins as an entry (a run tore it while writing
    it), else `unreadable-last-line-*.bin`."""
    what = "torn-line" if data.startswith(b'{"') else "unreadable-last-line"  # as `torn_by_a_run` reads it
    dest = set_aside_path(side_dir, what, stamp)
    atomic_write(dest, data, point="write")
    return dest


def set_aside_path(side_dir: Path, what: str, stamp: datetime | None = None) -> Path:
    """A new file's path in `<side_dir>/set-aside/` (made private): `<what>-<time>.bin`, numbered
    where one of that name is there already."""
    folder = ensure_private_dir(side_dir / SET_ASIDE)
    name = f"{what}-{(stamp or datetime.now()).strftime('%Y%m%d-%H%M%S-%f')}"
    dest = folder / f"{name}.bin"
    n = 1
    while dest.exists():
        n += 1
        dest = folder / f"{name}-{n}.bin"
    return dest


def torn_by_a_run(kept: Path) -> bool:
    """Whether bytes set aside in `kept` begin as an entry does (`{"v": 1, ...`): a line a run tore
    while writing it. Other bytes (random ones under a session's name) are not ours."""
    try:
        with kept.open("rb") as f:
            return f.read(2) == b'{"'
    except OSError:
        return False


def _size(kept: Path) -> int:
    try:
        return kept.stat().st_size
    except OSError:
        return 0


def moved_note(kept: Path) -> str:
    """`its last 572 bytes were moved to PATH`: the unreadable end of a file that is no session."""
    n = _size(kept)
    return f"its last {plural(n, 'byte') if n != 1 else 'byte'} {'was' if n == 1 else 'were'} moved to {kept}"


def set_aside_note(name: str, kept: Path, read: int) -> str:
    """What the user is told of the last line of session file `name`, cut off and kept in `kept`;
    `read`: how many lines of the file were read as entries. Only the start of an entry is a line
    the last run was writing when it ended: random bytes under a session's name were said to be."""
    n = _size(kept)
    they = "it is" if n == 1 else "they are"
    if torn_by_a_run(kept):
        return (f"the last run ended in the middle of writing a line of {name} ({plural(n, 'byte')}, "
                f"unreadable): {they} kept in {kept}")
    if not read:
        return f"{name} is not a session file: nothing in it can be read; {moved_note(kept)}"
    return f"the last line of {name} is unreadable ({plural(n, 'byte')}): {they} kept in {kept}"


def heal(fd: int, side_dir: Path) -> tuple[bytes, Path | None]:
    """Make the file end where a new line can start: the bytes to write first (a newline after a
    complete last entry that lacks one), and where a torn last line's bytes were set aside before
    it was cut off (None when there was none). Raises OSError if they could not be kept: then
    nothing is cut."""
    size = os.fstat(fd).st_size
    if not size or os.pread(fd, 1, size - 1) == b"\n":
        return b"", None
    torn = torn_tail(fd)
    if torn is None:
        return b"\n", None
    start, data = torn
    kept = set_aside(side_dir, data)
    os.ftruncate(fd, start)
    return b"", kept


def heal_file(path: Path, side_dir: Path) -> Path | None:
    """`heal` the session file at `path` when a load holds its lock, fsynced: where a torn last
    line's bytes were set aside before it was cut off (None when there was none). Raises OSError
    (a read-only file whose last line is torn): then nothing is cut, and the load skips the line;
    NotASessionFile. A read-only file that ends whole has nothing to heal: a resume of it (`-p
    /history`) warned of a torn last line it did not have."""
    try:
        fd = os.open(path, os.O_RDWR)
    except OSError:
        if _torn_in(path) is not None:
            raise
        return None
    try:
        refuse_if_not_a_session(path, fd)
        _, kept = heal(fd, side_dir)
        os.fsync(fd)
    finally:
        os.close(fd)
    return kept


def keep_torn_tail(path: Path, side_dir: Path) -> Path | None:
    """Before the file at `path` is replaced (a rewrite): where a torn last line's bytes were set
    aside (None: no file, or it ends whole). Raises OSError when they could not be kept, and
    NotASessionFile: a file that is no session is not replaced either."""
    if not path.exists():
        return None
    torn = _torn_in(path)
    return set_aside(side_dir, torn[1]) if torn is not None else None


def _torn_in(path: Path) -> tuple[int, bytes] | None:
    """`torn_tail` of the session file at `path`, read without writing to it; NotASessionFile."""
    fd = os.open(path, os.O_RDONLY)
    try:
        refuse_if_not_a_session(path, fd)
        return torn_tail(fd)
    finally:
        os.close(fd)


def append(path: Path, data: bytes | Callable[[str | None], bytes], side_dir: Path) -> Path | None:
    """Append `data` (or what `data(last entry id)` gives) to `path`, fsynced, after healing its
    end (see `heal`); where torn bytes were set aside, if any. The folder is fsynced when the file
    is new. Raises OSError: part of the data may then be on disk, torn; NotASessionFile: nothing was."""
    new = not path.exists()
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        refuse_if_not_a_session(path, fd)
        before, kept = heal(fd, side_dir)
        body = data if isinstance(data, bytes) else data(last_entry_id(fd))
        crashpoints.write_in_two(fd, before + body, "append")
        os.fsync(fd)
    finally:
        os.close(fd)
    if new:
        _fsync_dir(path.parent)
    return kept


def last_entry_id(fd: int) -> str | None:
    """The id of the file's last complete entry (what a new entry names as its parent)."""
    end = os.fstat(fd).st_size
    while end > 0:
        start = _last_line_start(fd, end - 1) if end > 1 else 0
        line = os.pread(fd, end - start, start).strip()
        end = start
        if not line:
            continue
        with contextlib.suppress(ValueError, UnicodeDecodeError, RecursionError):
            obj = json.loads(line)
            eid = obj.get("id") if isinstance(obj, dict) else None
            if isinstance(eid, str):
                return eid
    return None


# -- a typed message, saved before its session is built ---------------------------------------
#: Session file -> (id of the prompt entry this process saved there before the session was built,
#: where a torn line was set aside by that write). The store takes it over when it opens that
#: session (`claim_early`): it is this run's own turn, on its way to the model, not a message an
#: earlier run left unsent.
_EARLY: dict[Path, tuple[str, str, Path | None]] = {}


def save_prompt_early(root: Path, session_id: str, text: str, clock: Callable[[], str] = now_iso) -> str:
    """Save `text` as a prompt entry of session `session_id` in `root` before its store exists
    (the REPL's first seconds); its entry id. The session's lock is taken first, so this never
    writes into a session another process holds (SessionLocked then, from the store's words); it
    is taken as the store takes it (locks.py, `hold`), again on a lock file made anew when
    `sessions --delete` removed it between its opening and its locking. And it is kept (locks.py,
    `keep`) until the store takes it over when the session opens: let go in between, a second run
    of the same session saved its prompt too, was refused as in use only when its own store
    opened, and left the prompt to join the first run's turn, sent to the model with it.

    A session this write makes also gets the options the run was started with (the `meta` entry the
    store writes, remembered.py): killed while starting, it is continued with them, not at the
    defaults (another model, another endpoint). A session the command line resumed gets none here:
    new options of a resumed session wait for the model's first reply (store.py). A file that is no
    session is refused (NotASessionFile) before anything is made for it."""
    path = root / f"{session_id}.jsonl"
    refuse_if_not_a_session(path)
    folder = root / session_id
    if locks.kept_here(folder) is None:  # else an earlier message typed while it is built took it
        lock = locks.hold(folder, session_id, root)
        if lock is None:
            raise SessionLocked(in_use_message(session_id, locks.holder(folder)))
        locks.keep(folder, lock)  # until the store takes it (also when this write fails: it opens next)
    made: list[dict[str, Any]] = []
    options = _options_of_a_new_session(path)

    def line(parent: str | None) -> bytes:
        if options:
            made.append(new_entry("meta", {"meta": {remembered.KEY: options}}, parent, clock()))
            parent = made[-1]["id"]
        made.append(new_entry("prompt", {"prompt": {"text": text}}, parent, clock()))
        return encode(made)

    kept = append(path, line, folder)
    eid: str = made[-1]["id"]
    _EARLY[path.resolve()] = (eid, text, kept)
    return eid


def _options_of_a_new_session(path: Path) -> dict[str, Any]:
    """The options this run keeps (remembered.py) when `path` is a session it starts ({} else)."""
    run = remembered.this_run()
    if run is None or not run.options or path.exists():
        return {}
    if run.resumed is not None and run.resumed.resolve() == path.resolve():
        return {}
    return dict(run.options)


def claim_early(path: Path) -> tuple[str, str, Path | None] | None:
    """(the id and text of the prompt entry this process saved in `path` before its store
    existed, where that write set a torn line aside), if it did; once."""
    with contextlib.suppress(OSError):
        return _EARLY.pop(path.resolve(), None)
    return None


def take_back_early(root: Path, session_id: str, entry_id: str, *, new: bool,
                    clock: Callable[[], str] = now_iso) -> None:
    """Undo `save_prompt_early` of entry `entry_id` when the run was refused before its session
    opened (bad usage: nothing ran, as when a flag is refused). A session that write made (`new`)
    loses its file, so `-c` does not take it for the last conversation (the store's
    `remove_if_unused` then clears its folder); in an earlier session the prompt is marked unsent,
    so a load has the history as it was. Under the session's lock, the one the save kept (locks.py,
    `keep`), let go of here; else taken anew (`hold`: a lock file removed meanwhile is taken again
    on the one made anew): one another process holds, or whose lock file cannot be opened, is left
    as it is, and so is one whose file is gone (nothing is made for it). Raises OSError."""
    path = root / f"{session_id}.jsonl"
    with contextlib.suppress(OSError):
        _EARLY.pop(path.resolve(), None)
    lock = locks.kept(root / session_id)
    if not path.exists():  # removed meanwhile (`sessions --delete`): nothing to take back, nothing made
        if lock is not None:
            locks.release(lock)
        return
    if lock is None:
        try:
            lock = locks.hold(root / session_id, session_id, root)
        except SessionError:
            return
        if lock is None:
            return
    try:
        if new:
            path.unlink(missing_ok=True)
            _fsync_dir(root)
        elif path.exists():
            append(path, lambda parent: encode([new_entry("prompt", {"prompt": {"unsent": entry_id}}, parent,
                                                          clock())]), root / session_id)
    finally:
        locks.release(lock)
