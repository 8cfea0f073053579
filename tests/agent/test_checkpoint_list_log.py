"""A long session's checkpoint list is not written whole at each save: past `LOG_FROM` bytes, what
changed (the newest checkpoint, mostly) is appended to `checkpoints.log`, and the list is written
whole again only when its log has grown as large as it.

Before, the list was rewritten (and fsynced) at each turn and before each file a tool first
changed: 1,500 turns made a 700 KB list written two or three times a turn, the time of a turn
growing with the session (benchmarks/turn_growth.py). What is read back is the same: the list with
its log's lines applied, a line torn by a crash or of another list's log passed over."""

from __future__ import annotations

import errno
import hashlib
import itertools
import json
import os
from pathlib import Path

import pytest

from compact_agent.agent.tools import checkpoint_store, checkpoints
from compact_agent.agent.tools.checkpoint_store import LOG_FROM
from compact_agent.agent.tools.checkpoints import Checkpoints
from compact_agent.agent.tools.file_state import atomic_write_bytes


def turns(cps: Checkpoints, work: Path, start: int, count: int) -> None:
    """`count` turns from turn `start`, each writing one of 20 files through the checkpoints as the
    file tools do."""
    for turn in range(start, start + count):
        cps.begin(turn, 2 * turn, f"change file {turn % 20} so that it prints the number {turn}, and say why")
        path, data = work / f"f{turn % 20}.py", f"print({turn})\n".encode()
        cps.before_write(path, data)
        path.write_bytes(data)
        cps.wrote(path, data)


def as_saved(cps: Checkpoints) -> list[dict]:
    return [c.to_json() for c in cps.list()]


@pytest.fixture
def long_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Checkpoints, Path, Path]:
    """A session whose list is past `LOG_FROM`: the checkpoints, the project, their folder.

    Its checkpoints' times are a clock's of one width: with the real one, a time's digits (a float's
    shortest form) made the list's size, and so the saves that write it whole, differ from run to
    run, and the log a test expects was now and then just written over (emptied) by the last save."""
    ticks = itertools.count()
    monkeypatch.setattr(checkpoints.time, "time", lambda: 1_765_000_000.25 + next(ticks))
    work, store = tmp_path / "work", tmp_path / "store"
    work.mkdir()
    cps = Checkpoints(store)
    turns(cps, work, 0, 110)
    assert (store / "checkpoints.json").stat().st_size > LOG_FROM
    return cps, work, store


def test_a_long_session_appends_what_changed(long_session, monkeypatch: pytest.MonkeyPatch) -> None:
    cps, work, store = long_session
    whole: list[int] = []

    def counted(path: Path, data: bytes, mode: int | None = None) -> None:
        if Path(path).name == "checkpoints.json":
            whole.append(len(data))
        atomic_write_bytes(path, data, mode)

    monkeypatch.setattr(checkpoint_store, "atomic_write_bytes", counted)
    turns(cps, work, 110, 60)  # 120 saves of the list
    assert len(whole) <= 2, whole  # the log as large as the list: written whole again, and no more
    log = store / "checkpoints.log"
    assert log.is_file() and log.stat().st_size <= (store / "checkpoints.json").stat().st_size
    assert log.stat().st_mode & 0o777 == 0o600
    again = Checkpoints(store)
    assert as_saved(again) == as_saved(cps) and len(again.list()) == 170
    assert again.rewind(169)[0] == 2 * 169 and (work / f"f{169 % 20}.py").read_text() == "print(149)\n"


def test_a_rewind_writes_the_list_whole_and_drops_the_log(long_session) -> None:
    cps, work, store = long_session
    # A turn whose save finds the log as large as the list writes the list whole and drops the log;
    # the turn after it logs again. Where that falls depends on the entries' sizes (the paths in
    # them, whose folder's name is the test runner's): not on a turn counted here.
    for turn in range(110, 113):
        turns(cps, work, turn, 1)
        if (store / "checkpoints.log").is_file():
            break
    assert (store / "checkpoints.log").is_file()
    cps.rewind(100)
    assert not (store / "checkpoints.log").exists()
    assert len(json.loads((store / "checkpoints.json").read_text())["checkpoints"]) == 100
    assert as_saved(Checkpoints(store)) == as_saved(cps)


def test_torn_and_foreign_lines_are_passed_over(long_session) -> None:
    cps, work, store = long_session
    turns(cps, work, 110, 5)
    log, index = store / "checkpoints.log", store / "checkpoints.json"
    with log.open("ab") as f:  # a crash in the middle of an append
        f.write(b'{"log": "' + json.loads(index.read_text())["log"].encode() + b'", "at": 115, "checkp')
    again = Checkpoints(store)
    assert as_saved(again) == as_saved(cps)
    turns(again, work, 115, 1)  # not onto the torn line: the list written whole
    assert all(json.loads(line) for line in log.read_bytes().splitlines())
    assert as_saved(Checkpoints(store)) == as_saved(again)
    # An earlier version writes the list whole, without the log's mark: the log is not its own.
    first = json.loads(index.read_text())["checkpoints"][:10]
    index.write_text(json.dumps({"version": 1, "checkpoints": first}))
    assert [c.prompt for c in Checkpoints(store).list()] == [e["prompt"] for e in first]


def test_a_list_written_by_another_is_written_whole(long_session) -> None:
    """Two stores of the same folder (a second run of the session, between two saves of this one):
    the list on disk is not as this one left it, so it does not add to a log the other replaced."""
    cps, work, store = long_session
    other = Checkpoints(store)
    turns(other, work, 110, 1)
    turns(cps, work, 110, 2)
    assert as_saved(Checkpoints(store)) == as_saved(cps)


def test_a_save_that_failed_is_made_good_by_the_next(long_session, monkeypatch: pytest.MonkeyPatch) -> None:
    """A save of the newest checkpoint alone gives the others as last saved: after one that failed
    (the disk gave an error once its lines were written), the next is whole, so what the failed one
    held is not lost."""
    cps, work, store = long_session
    turns(cps, work, 110, 3)
    assert (store / "checkpoints.log").stat().st_size > 0

    def fails(fd: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    path, data = work / "f12.py", b"print('again')\n"  # written by the newest turn: written again in it
    with monkeypatch.context() as m:
        m.setattr(os, "fsync", fails)
        cps.before_write(path, data)
        path.write_bytes(data)
        cps.wrote(path, data)  # its save failed, and the write stands
    turns(cps, work, 113, 1)
    again = Checkpoints(store)
    assert again.list()[112].left[str(path.resolve())] == hashlib.sha256(data).hexdigest()
    assert as_saved(again) == as_saved(cps)


def test_a_folder_where_the_log_goes_turns_the_checkpoints_off(tmp_path: Path) -> None:
    """As a folder where the list goes does (test_checkpoints_blocked.py): every append would fail."""
    (tmp_path / "store" / "checkpoints.log").mkdir(parents=True)
    cps = Checkpoints(tmp_path / "store")
    assert cps.off is not None and "a folder stands where the checkpoint log goes" in cps.off


def test_a_fifo_where_the_log_is_is_not_read(long_session) -> None:
    """A FIFO put where the log is would wait for a writer forever: the list is read as it is (the
    checkpoints of its last whole write), and the next save writes it whole, the FIFO gone."""
    _, work, store = long_session
    log = store / "checkpoints.log"
    log.unlink(missing_ok=True)
    os.mkfifo(log)
    listed = json.loads((store / "checkpoints.json").read_text())["checkpoints"]
    again = Checkpoints(store)
    assert as_saved(again) == listed and len(listed) > 50
    turns(again, work, len(listed), 1)
    assert not log.exists() or log.is_file()
    assert as_saved(Checkpoints(store)) == as_saved(again)
