"""`sessions --delete-older-than 0` and a run that is starting. A run saves its prompt before its
session is built (journal.py, `save_prompt_early`); it let go of the session's lock until its store
took it, after the imports, and removing by age in between lost the run its file. It keeps the lock
now (locks.py, `keep`): the session is in use, not removed. And a session written within the last
minute (its lock free: the run that wrote it ended) is too new to be judged, and a session written
to after it was chosen is judged again once its lock is held. The clock is given; no test waits."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from compact_agent.session import journal, removal
from compact_agent.session.orphans import orphans

T = 2_000_000_000.0
DAY = 86_400.0


def folder(tmp_path: Path) -> tuple[Path, Path]:
    home = tmp_path / "home"
    root = home / "projects" / "project-0123456789ab"
    root.mkdir(parents=True)
    return home, root


def removed_before_locking(root: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Callable[[int, int], None], list[bool]]:
    """The next lock taken finds session s1's folder removed, lock file and all, between its opening
    and its locking (as `sessions --delete` holding it removes it): the real `flock`, and a list
    that holds True once that happened."""
    from compact_agent.session import locks as lock_module

    real = lock_module.fcntl.flock
    removed: list[bool] = []

    def flock(fd: int, op: int) -> None:
        if not removed:
            removed.append(True)
            (root / "s1" / "lock").unlink()
            (root / "s1").rmdir()
        real(fd, op)

    monkeypatch.setattr(lock_module.fcntl, "flock", flock)
    return real, removed


def let_go(root: Path, session_id: str) -> None:
    """Let go of the lock the early save keeps (as the store that takes it over does when its run ends)."""
    from compact_agent.session import locks

    fd = locks.kept(root / session_id)
    assert fd is not None
    locks.release(fd)


def started(root: Path, session_id: str, when: float) -> None:
    """A session a run wrote as it started, its prompt saved, its lock let go of: the run ended."""
    journal.save_prompt_early(root, session_id, "fix the build")
    let_go(root, session_id)
    for p in [root / f"{session_id}.jsonl", root / session_id, *(root / session_id).rglob("*")]:
        os.utime(p, (when, when), follow_symlinks=False)


def run(root: Path, home: Path, days: int, now: float) -> tuple[int, list[str], list[str]]:
    said: list[str] = []
    warned: list[str] = []
    code = removal.run(root, home, [], days, say=said.append, warn=warned.append, now=lambda: now)
    return code, said, warned


def test_a_session_written_in_the_last_minute_is_not_removed_by_age(tmp_path: Path) -> None:
    home, root = folder(tmp_path)
    started(root, "20331018-033310-aaaaaa", T - 30)
    code, said, warned = run(root, home, 0, T)
    assert (code, warned) == (0, [])
    assert said == ["left session 20331018-033310-aaaaaa: written in the last minute (a run may be starting in it; "
                    "--delete 20331018-033310-aaaaaa removes it)"]
    assert (root / "20331018-033310-aaaaaa.jsonl").exists()

    code, said, warned = run(root, home, 0, T + 31)  # a minute after: old enough to be judged
    assert (code, warned) == (0, []) and said[0].startswith("removed session 20331018-033310-aaaaaa: the session file")
    assert not (root / "20331018-033310-aaaaaa.jsonl").exists()


def test_a_session_open_in_a_run_is_said_in_use_not_sent_to_delete(tmp_path: Path) -> None:
    """A REPL opened a session less than a minute ago: it holds the lock. `--delete ID`, which the
    line for a starting run suggests, would refuse it; the line says it is in use, as for an older one."""
    from compact_agent.session.store import SessionStore

    home, root = folder(tmp_path)
    started(root, "20331018-033310-ffffff", T - 20)
    store = SessionStore(root, "20331018-033310-ffffff")
    store.lock()
    try:
        code, said, warned = run(root, home, 0, T)
        assert (code, said) == (0, [])
        assert warned == ["session 20331018-033310-ffffff is in use by another compact-agent process; not removed"]
        assert removal.run(root, home, [], 0, said.append, warned.append, now=lambda: T, dry=True) == 0
        assert said == [] and warned[1:] == warned[:1]
    finally:
        store.unlock()
    assert (root / "20331018-033310-ffffff.jsonl").exists()
    code, said, warned = run(root, home, 0, T)  # let go of: a run may be starting in it
    assert warned == [] and said[0].startswith("left session 20331018-033310-ffffff: written in the last minute")


def test_what_is_left_of_a_session_written_in_the_last_minute_stays_too(tmp_path: Path) -> None:
    home, root = folder(tmp_path)
    started(root, "20331018-033310-bbbbbb", T - 10)
    (root / "20331018-033310-bbbbbb.jsonl").unlink()  # its side folder, lock and all, is left
    assert orphans(root) == ["20331018-033310-bbbbbb"]
    code, said, _ = run(root, home, 0, T)
    assert code == 0 and said[0].startswith("left session 20331018-033310-bbbbbb: written in the last minute")
    assert (root / "20331018-033310-bbbbbb" / "lock").exists()


def test_an_older_session_is_removed_as_before(tmp_path: Path) -> None:
    home, root = folder(tmp_path)
    started(root, "20331008-033310-cccccc", T - 10 * DAY)
    started(root, "20331018-033310-dddddd", T - 5)
    code, said, _ = run(root, home, 3, T)  # days past the minute: the new one is not said
    assert code == 0 and len(said) == 1 and said[0].startswith("removed session 20331008-033310-cccccc: ")
    assert (root / "20331018-033310-dddddd.jsonl").exists()


def test_a_session_a_run_writes_to_after_it_was_chosen_is_left(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Chosen for its age, then `-c -p` saves its prompt in it before the removal takes its lock:
    judged again under the lock, the session is left with the run's prompt."""
    home, root = folder(tmp_path)
    started(root, "20331008-033310-eeeeee", T - 10 * DAY)
    real = removal._hold

    def hold(side: Path, session_id: str) -> int | None:
        journal.save_prompt_early(root, session_id, "go on")  # a run resuming it, in between, that ended
        let_go(root, session_id)
        os.utime(root / f"{session_id}.jsonl", (T, T))
        return real(side, session_id)

    monkeypatch.setattr(removal, "_hold", hold)
    code, said, warned = run(root, home, 0, T)
    assert (code, warned) == (0, [])
    assert said == ["left session 20331008-033310-eeeeee: written to since it was chosen (a run is in it)"]
    assert b"go on" in (root / "20331008-033310-eeeeee.jsonl").read_bytes()
    assert (root / "20331008-033310-eeeeee" / "lock").exists()


def test_a_lock_file_removed_while_a_run_took_it_is_taken_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run opened its session's lock file, then `sessions --delete` (holding it) removed the
    session's folder, lock and all, before the run locked it: the run held a lock on a file no one
    else could see, and a second run could take the session too. It locks the file made anew."""
    from compact_agent.session import locks as lock_module
    from compact_agent.session.files import SessionLocked
    from compact_agent.session.locks import check_free
    from compact_agent.session.store import SessionStore

    _, root = folder(tmp_path)
    real, _ = removed_before_locking(root, monkeypatch)
    store = SessionStore(root, "s1")
    store.lock()
    monkeypatch.setattr(lock_module.fcntl, "flock", real)
    try:
        with pytest.raises(SessionLocked):
            check_free(root, "s1")  # another run asking finds it held
    finally:
        store.unlock()
    check_free(root, "s1")


@pytest.mark.parametrize("write", ["save_prompt_early", "take_back_early"])
def test_a_lock_file_removed_while_a_typed_message_is_saved_is_taken_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, write: str) -> None:
    """A message typed while the session is built is saved under its lock (journal.py), and so is
    its taking back: the lock file removed between its opening and its locking, the write held a
    lock no one else could see, and a run could take the session while it wrote. It locks the file
    made anew, as the store does."""
    from compact_agent.session import locks as lock_module
    from compact_agent.session.files import SessionLocked
    from compact_agent.session.locks import check_free

    _, root = folder(tmp_path)
    entry = journal.save_prompt_early(root, "s1", "fix the build")
    let_go(root, "s1")  # an earlier run's (saving); the store that took it over let go of it (taking back)
    real_flock, removed = removed_before_locking(root, monkeypatch)
    real_append = journal.append
    asked: list[str] = []

    def append(*args: object, **kwargs: object) -> object:
        monkeypatch.setattr(lock_module.fcntl, "flock", real_flock)
        with pytest.raises(SessionLocked):
            check_free(root, "s1")  # another run asking, while the message is written, finds it held
        asked.append("held")
        return real_append(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(journal, "append", append)
    if write == "save_prompt_early":
        journal.save_prompt_early(root, "s1", "and the tests")
    else:
        journal.take_back_early(root, "s1", entry, new=False)
        check_free(root, "s1")  # let go of once taken back
    assert removed and asked == ["held"]
    if write == "save_prompt_early":  # kept until its store takes it over
        with pytest.raises(SessionLocked):
            check_free(root, "s1")
        let_go(root, "s1")
    assert (root / "s1" / "lock").exists()


def test_taking_back_a_message_of_a_session_removed_meanwhile_makes_nothing(tmp_path: Path) -> None:
    """`sessions --delete` removed the session while the run that saved its prompt was refused:
    taking the prompt back leaves nothing, no file holding only its `unsent` mark, no folder."""
    import contextlib

    _, root = folder(tmp_path)
    entry = journal.save_prompt_early(root, "s1", "fix the build")
    (root / "s1.jsonl").unlink()
    (root / "s1" / "lock").unlink()
    (root / "s1").rmdir()
    with contextlib.suppress(OSError):
        journal.take_back_early(root, "s1", entry, new=False)
    assert sorted(p.name for p in root.iterdir()) == []


def test_a_session_a_starting_run_saved_its_prompt_in_is_in_use(tmp_path: Path) -> None:
    """The run keeps the lock its early save took until its store takes it over: removing by age
    (or by its id) says the session is in use, whatever its age, and leaves it."""
    home, root = folder(tmp_path)
    journal.save_prompt_early(root, "20331008-033310-abcdef", "fix the build")
    for p in [root / "20331008-033310-abcdef.jsonl", root / "20331008-033310-abcdef"]:
        os.utime(p, (T - 10 * DAY, T - 10 * DAY))
    try:
        code, said, warned = run(root, home, 0, T)
        assert (code, said) == (0, [])
        assert warned == ["session 20331008-033310-abcdef is in use by another compact-agent process; not removed"]
        assert b"fix the build" in (root / "20331008-033310-abcdef.jsonl").read_bytes()
    finally:
        let_go(root, "20331008-033310-abcdef")
