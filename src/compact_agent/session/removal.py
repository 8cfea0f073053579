"""Removing sessions and everything they own (`compact-agent sessions --delete ID`,
`--delete-older-than DAYS`).

A session is more than its file `<root>/<id>.jsonl`. Beside it, in the project's folder of sessions:
- `<id>/`: its side folder (store.py): the lock, the event log, spilled tool results, session notes,
  the collapse commit log, checkpoints and the file backups they restore, the plan, the usage ledger,
  the read state, a large input set aside, torn lines set aside (journal.py);
- `compact-history/<id>-<stamp>.jsonl`: the full transcript archived before each compaction (archives.py);
- `sent_prompts/<id>.jsonl`: how each prompt sent was shown (ui/sent_record.py);
- temp files a killed writer left of these (`.<id>.jsonl.<hex>.tmp`, `.<id>-<stamp>.jsonl.<hex>.tmp`);
- its entries in the project's prompt history (prompt_history.py): the lines typed in it, which
  up-arrow brought back after the session was gone (a secret pasted into it included), and those an
  earlier version wrote, which name no session, typed while the session was in use (in_use.py). The
  other entries stay, byte for byte.
What the sessions of the project share (the prompt history itself, the folders above) stays.

`--delete-older-than DAYS` measures a session's age by the newest of its files (the session file,
its archives, its side folder's files, its record of sent prompts, `owned_files.last_written`): a session written to only in its
side folder (checkpoints, notes) lately is not old. It also removes, as old as that, what is left of
a session whose file is gone (removed by hand, or by another program): its archives, its side folder
(one that holds a session's files: its lock, its event log, …), its record of sent prompts, its temp
files and its prompts; its line says so. They are found by name (orphans.py); `sessions` lists them
apart (leftovers.py), and `--delete` takes their ids as a session's. Nothing written within the
last minute (`TOO_NEW`) is judged by its age, whatever DAYS: a run that is starting in it may not
hold its lock yet. A session chosen is judged again once its lock is held.

Nothing is removed from a session another process holds (its lock is taken, and held until the
session file is gone: no run can open it meanwhile), and nothing outside the project's folder of
sessions: an id is one of the sessions listed there (a name with a slash or a leading dot never is),
a symbolic link is removed itself, never followed, a shared folder that is a link is left alone, and
a folder of sessions that is a link is refused. The session file goes last, so that a removal cut
short (a permission denied) leaves a session still listed, whose removal can be tried again. A file
under a session's name that is no session (another program's, not_a_session.py) is never removed:
`--delete` names it and refuses, `--delete-older-than` passes over it. `--dry-run` says what would
go, counted the same way, and removes nothing.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..words import plural
from . import in_use, prompt_history
from .files import SessionError, SessionLocked, as_copied, list_sessions
from .files import size_text as size_text  # files.py's: the listing and the analyzer import it from here too
from .held_elsewhere import DELETE, holder
from .locks import LOCK_FILE
from .not_a_session import is_not_a_session
from .orphans import ARCHIVES, SHARED, a_possible_id, entries, is_side_folder, orphans, real_dir
from .owned_files import last_written, loose_files

DAY = 86_400.0
#: Seconds within which a session last written is too new to be judged by its age. A run that saved
#: its prompt before building its session (journal.py, `save_prompt_early`) keeps the session's lock
#: from that save until its store takes it over (locks.py, `keep`): removal finds the session in use
#: and leaves it, whatever its age (it once let go of the lock in between, and `--delete-older-than 0`
#: removed the file of a run that went on without its prompt). The minute is a margin for a run that
#: starts in a session without saving a prompt first (the REPL's `-c`, `-r ID`): it only checks that
#: the lock is free (locks.py, `check_free`) and takes it when its store opens, after the imports.
TOO_NEW = 60.0


class RemovalError(SessionError):
    """One line: an id that names no session or several, or a file that could not be removed."""


class WrittenMeanwhile(SessionError):
    """A session chosen for its age was written to before its lock was taken: a run is in it."""


@dataclass
class Removed:
    """What the removal of one session took away."""

    session_id: str
    session_file: bool = False
    archives: int = 0
    side_files: int = 0
    sent_record: bool = False
    others: int = 0  # temp files a killed writer left
    prompts: int = 0  # its entries in the project's prompt history
    freed: int = 0  # bytes
    dry: bool = False  # counted, not removed (`--dry-run`)
    orphan: bool = False  # what was left of a session whose file was gone
    # (device, inode) -> (its link count when first seen, its names removed so far)
    _names: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict, repr=False)

    def line(self) -> str:
        """`removed ID: the session file, 2 archives, 9 side files (1.2 MB freed)`."""
        what = self.parts()
        whose = (f"what was left of session {self.session_id}, whose session file is gone"
                 if self.orphan else f"session {self.session_id}")
        if self.dry:
            return f"would remove {whose}: {', '.join(what) or 'nothing'} ({size_text(self.freed)} to free)"
        return f"removed {whose}: {', '.join(what) or 'nothing'} ({size_text(self.freed)} freed)"

    def parts(self) -> list[str]:
        """What it holds, by kind: `the session file`, `2 archives`, `9 side files`, …"""
        return [*(["the session file"] if self.session_file else []),
                *([plural(self.archives, "archive")] if self.archives else []),
                *([plural(self.side_files, "side file")] if self.side_files else []),
                *(["the record of its sent prompts"] if self.sent_record else []),
                *([plural(self.others, "temp file")] if self.others else []),
                *([f"{plural(self.prompts, 'prompt')} in the prompt history"] if self.prompts else [])]


def check_root(root: Path, home: Path) -> None:
    """Refuse a folder of sessions that is a symbolic link, or that resolves outside `home`'s
    `projects` folder: removing in it would remove files elsewhere."""
    if root.is_symlink() or (root.exists() and root.resolve().parent != (home / "projects").resolve()):
        raise RemovalError(f"{root} is a symbolic link or lies outside {home / 'projects'}: nothing is removed through it")


def find(root: Path, wanted: str) -> str:
    """The id of the session of `root` that `wanted` names: its whole id, or (as `--resume` takes
    it) a start of one id alone; also of what is left of a session whose file is gone (`orphans`,
    which `sessions` lists apart). RemovalError, one line, for none or several."""
    ids = [p.stem for p in list_sessions(root)]
    if not wanted.strip():
        raise RemovalError("--delete needs a session id (compact-agent sessions lists them)")
    wanted = as_copied(wanted, root)  # `ID.jsonl`, its path, spaces around it
    if wanted in ids:
        return _a_session(root, wanted)
    left = orphans(root)
    if wanted in left:
        return wanted
    matches = sorted(i for i in {*ids, *left} if i.startswith(wanted))
    if len(matches) == 1:
        return _a_session(root, matches[0]) if matches[0] in ids else matches[0]
    if matches:
        raise RemovalError(f"{wanted} is the start of {len(matches)} sessions "
                           f"({', '.join(matches[:4])}{', …' if len(matches) > 4 else ''}); give more of the id")
    held = holder(root.parent, root, wanted, DELETE)  # another project's: which, and how to remove it there
    raise RemovalError(f"no session {wanted} for this directory (compact-agent sessions lists them)"
                       + (f"; {held[1]}" if held else ""))


def _a_session(root: Path, session_id: str) -> str:
    """`session_id`, once its file is a session's: another program's file is not ours to remove."""
    path = root / f"{session_id}.jsonl"
    if is_not_a_session(path):
        raise RemovalError(f"{path} is not a session file (no line of it is a session entry); it is left as it is")
    return session_id


def judged_before(days: int, now: float) -> float:
    """The time before which a session is last written more than `days` days ago and old enough
    to be judged (`TOO_NEW`)."""
    return min(now - days * DAY, now - TOO_NEW)


def older_than(root: Path, days: int, now: Callable[[], float] = time.time) -> list[str]:
    """The ids of `root`'s sessions last written more than `days` days ago (the newest time of the
    session file and its side files, `last_written`), oldest first; every session of the folder,
    also those a listing folds (`sessions --all` lists them), and no file under a session's name
    that is no session. None written within the last `TOO_NEW` seconds, whatever `days`."""
    cutoff = judged_before(days, now())
    found: list[tuple[float, str]] = []
    for p in list_sessions(root):
        with contextlib.suppress(OSError):
            if p.stat().st_mtime < cutoff and (when := last_written(root, p.stem)) < cutoff \
                    and not is_not_a_session(p):
                found.append((when, p.stem))
    return [sid for _, sid in sorted(found)]


def orphans_older_than(root: Path, days: int, now: Callable[[], float] = time.time) -> list[str]:
    """The ids of sessions of `root` whose file is gone and whose side files (`orphans`) were
    last written more than `days` days ago (and not within `TOO_NEW` seconds), oldest first."""
    cutoff = judged_before(days, now())
    found = [(when, sid) for sid in orphans(root) if (when := last_written(root, sid)) < cutoff]
    return [sid for _, sid in sorted(found)]


def too_new(root: Path, days: int, now: float) -> list[str]:
    """The ids of `root`'s sessions (and of what is left of sessions whose file is gone) that
    `days` would have removed but were written within the last `TOO_NEW` seconds, oldest first."""
    newer, older = judged_before(days, now), now - days * DAY
    found = [(when, p.stem) for p in list_sessions(root)
             if newer <= (when := last_written(root, p.stem)) < older and not is_not_a_session(p)]
    found += [(when, sid) for sid in orphans(root) if newer <= (when := last_written(root, sid)) < older]
    return [sid for _, sid in sorted(found)]


def remove(root: Path, session_id: str, dry: bool = False, written_before: float | None = None) -> Removed:
    """Remove session `session_id` of `root` and everything it owns (`dry`: count it, remove
    nothing). SessionLocked when another process holds it (nothing removed); RemovalError naming
    the file that could not be removed. A session whose file is gone (`Removed.orphan`) loses its
    side folder only when that is a folder holding a session's files: another folder or a link of
    that name is not known to be ours. `written_before`: a session chosen for its age, which is
    judged again once its lock is held (WrittenMeanwhile, nothing removed, when a run wrote to it
    since it was chosen: a prompt saved before its store took the lock)."""
    if not session_id or session_id.startswith(".") or any(c in session_id for c in "/\\\0"):
        raise RemovalError(f"no session {session_id} for this directory")
    orphan = not os.path.lexists(root / f"{session_id}.jsonl")
    # A session named like a shared folder, or like another session's file (`X.jsonl.jsonl`), has no side folder.
    side = root / session_id if session_id not in SHARED and not session_id.endswith(".jsonl") else None
    if side is not None and orphan and not is_side_folder(side):  # nor a link: where it points is not known
        side = None
    lock = _hold(side, session_id) if side is not None else None
    out = Removed(session_id, dry=dry, orphan=orphan)
    try:
        if written_before is not None and last_written(root, session_id) >= written_before:
            raise WrittenMeanwhile(f"left session {session_id}: written to since it was chosen (a run is in it)")
        history = root / prompt_history.NAME
        try:  # before the session file, which goes last: a removal cut short can be tried again
            typed = in_use.typed_while(in_use.moments(root, session_id, real_dir(root / ARCHIVES)))
            out.prompts, freed = prompt_history.drop_session(history, session_id, dry, typed_while=typed)
        except OSError as e:
            raise RemovalError(f"could not remove the prompts of session {session_id} from {history}: "
                               f"{e.strerror or e}") from None
        out.freed += freed
        for kind, p in loose_files(root, session_id):
            n = _unlink(p, out)
            if kind == "archive":
                out.archives += n
            elif kind == "sent":
                out.sent_record = n > 0
            else:
                out.others += n
        if side is not None and side.is_symlink():  # the link goes, not what it points to
            out.side_files += _unlink(side, out)
        elif side is not None and real_dir(side) is not None:
            for p in entries(side):
                if p.name != LOCK_FILE:
                    out.side_files += _remove_tree(p, out)
        path = root / f"{session_id}.jsonl"
        if os.path.lexists(path):
            out.session_file = _unlink(path, out) > 0
        if side is not None and real_dir(side) is not None:  # what is left of it: the lock
            out.side_files += _unlink(side / LOCK_FILE, out) if out.dry else _remove_tree(side, out)
    finally:
        if lock is not None:
            os.close(lock)
    return out


def _hold(side: Path, session_id: str) -> int | None:
    """The session's lock, taken (its descriptor): SessionLocked when another process holds it.
    None when it has none (no side folder, or one that is a link, which is not followed)."""
    try:
        folder = os.open(side, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        fd = os.open(LOCK_FILE, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder)
    except OSError:
        return None
    finally:
        os.close(folder)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise SessionLocked(f"session {session_id} is in use by another compact-agent process") from None
    return fd


def _in_use(root: Path, session_id: str) -> bool:
    """Whether another process holds session `session_id`'s lock (its lock taken a moment, and let go)."""
    try:
        fd = _hold(root / session_id, session_id) if a_possible_id(session_id) else None
    except SessionLocked:
        return True
    if fd is not None:
        os.close(fd)
    return False


def _unlink(path: Path, out: Removed) -> int:
    """Remove the file (or link) `path` itself; 1, counting the bytes it freed."""
    try:
        st = os.lstat(path)
        if not out.dry:
            os.unlink(path)
    except FileNotFoundError:
        return 0
    except OSError as e:
        raise RemovalError(f"could not remove {path}: {e.strerror or e}") from None
    # A hard link's bytes are freed with its last name: counted once every name it had when first
    # seen is among those removed (a dry run unlinks none, so the link count is not read as it goes).
    key = (st.st_dev, st.st_ino)
    links, seen = out._names.get(key, (st.st_nlink, 0))
    out._names[key] = (links, seen + 1)
    if seen + 1 == links:
        out.freed += st.st_size
    return 1


def _remove_tree(path: Path, out: Removed) -> int:
    """Remove `path`, a folder with all it holds (links removed, never followed); the files removed."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return 0
    except OSError as e:
        raise RemovalError(f"could not remove {path}: {e.strerror or e}") from None
    if not stat.S_ISDIR(mode):
        return _unlink(path, out)
    n = sum(_remove_tree(p, out) for p in entries(path))
    if out.dry:
        return n
    try:
        os.rmdir(path)
    except FileNotFoundError:
        pass
    except OSError as e:
        raise RemovalError(f"could not remove {path}: {e.strerror or e}") from None
    return n


def run(root: Path, home: Path, ids: Sequence[str], days: int | None, say: Callable[[str], object],
        warn: Callable[[str], object], now: Callable[[], float] = time.time, dry: bool = False,
        folded: Mapping[str, int] | None = None) -> int:
    """`sessions --delete ID…` (`ids`) or `--delete-older-than DAYS` (`days`): one line said for
    each session removed, one warned for each another process holds (not removed) and for a
    failure; the exit code. An id that names no session or several removes nothing (1); so does a
    session named by `--delete` that is in use, the others named are removed (1). `folded`: by
    session id, the older failed starts with its prompt the listing counts in its row (`tried 3
    times`), which `--delete` of that id leaves: a line says so, else the row came back as `tried 2
    times` under the next of them, as if the removal had not happened."""
    before: float | None = None
    try:
        check_root(root, home)
        if days is not None:
            t = now()
            before = judged_before(days, t)
            chosen = older_than(root, days, lambda: t)
            chosen += orphans_older_than(root, days, lambda: t)  # what is left of sessions whose file is gone
            new = too_new(root, days, t)
            if not chosen and not new:
                say(f"no sessions older than {plural(days, 'day')}")
            for sid in new:
                if _in_use(root, sid):  # open in a run: --delete would refuse it too
                    warn(f"session {sid} is in use by another compact-agent process; not removed")
                else:
                    say(f"left session {sid}: written in the last minute (a run may be starting in it; "
                        f"--delete {sid} removes it)")
        else:
            chosen = list(dict.fromkeys(find(root, wanted) for wanted in ids))
    except RemovalError as e:
        warn(str(e))
        return 1
    code = 0
    for sid in chosen:
        try:
            say(remove(root, sid, dry, written_before=before).line())
            if (n := (folded or {}).get(sid, 0)) and days is None:
                say(f"{'would leave' if dry else 'left'} {plural(n, 'older failed start')} with the same first prompt, "
                    f"which the listing counted in its row (compact-agent sessions --all lists "
                    f"{'it' if n == 1 else 'them'}; --delete ID removes each)")
        except WrittenMeanwhile as e:
            say(str(e))
        except SessionLocked as e:
            warn(f"{e}; not removed")
            code = code or (1 if days is None else 0)
        except RemovalError as e:
            warn(str(e))
            code = 1
    return code
