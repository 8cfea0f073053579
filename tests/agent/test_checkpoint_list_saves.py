"""A file's first write in a turn writes the checkpoint list once: before the file, naming both the
version it saved and what the write leaves (the list was written again right after the file, for
the second alone). A later write of it names what it leaves before the file too, beside what the
write before it left, and after the file that alone: killed in between, either is the agent's. A
write that is not made takes back what it was to leave, in memory and on disk: a later /rewind
takes the file as the agent left it, not as changed by hand since."""

from __future__ import annotations

import errno
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import ModelRequest, UserPromptPart

from compact_agent.agent.safety.permissions import Permissions
from compact_agent.agent.tools import checkpoint_store, edits
from compact_agent.agent.tools.base import ToolEnv
from compact_agent.agent.tools.checkpoints import Checkpoints
from compact_agent.agent.tools.edits import write_file_impl
from compact_agent.agent.tools.file_state import ReadFileState, atomic_write_bytes
from compact_agent.config import Settings


def _env(tmp_path: Path) -> tuple[ToolEnv, Checkpoints]:
    work = tmp_path / "work"
    work.mkdir()
    cps = Checkpoints(tmp_path / "store")
    return ToolEnv(work, Settings(), ReadFileState(), Permissions(work, "yes"), checkpoints=cps), cps


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _full(path: Path, data: bytes, mode: int | None = None, **_: Any) -> None:
    raise OSError(errno.ENOSPC, "No space left on device", str(path))


def test_a_first_write_in_a_turn_writes_the_list_once_before_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env, cps = _env(tmp_path)
    index = tmp_path / "store" / "checkpoints.json"
    lists: list[Any] = []
    on_disk: list[Any] = []  # the list on disk as the file is written

    def list_write(path: Path, data: bytes, mode: int | None = None) -> None:
        lists.append(json.loads(data)) if Path(path).name == "checkpoints.json" else None
        atomic_write_bytes(path, data, mode)

    def file_write(path: Path, data: bytes, mode: int | None = None, **how: Any) -> None:
        on_disk.append(json.loads(index.read_bytes())["checkpoints"][-1])
        atomic_write_bytes(path, data, mode, **how)

    monkeypatch.setattr(checkpoint_store, "atomic_write_bytes", list_write)
    monkeypatch.setattr(edits, "atomic_write_bytes", file_write)
    cps.begin(0, 0, "write one")
    lists.clear()
    a = str((env.cwd / "a.txt").resolve())
    assert "could not" not in write_file_impl(env, "a.txt", "one\n")
    assert len(lists) == 1
    assert (on_disk[0]["saved"], on_disk[0]["left"]) == ({a: None}, {a: _sha(b"one\n")})
    assert "could not" not in write_file_impl(env, "a.txt", "two\n")  # a later write: before the file, beside
    assert (on_disk[1]["left"], on_disk[1]["writing"]) == ({a: _sha(b"one\n")}, {a: _sha(b"two\n")})  # the last's
    assert len(lists) == 3 and lists[2]["checkpoints"][-1]["left"] == {a: _sha(b"two\n")}  # and after, alone
    assert "writing" not in lists[2]["checkpoints"][-1]
    assert Checkpoints(tmp_path / "store").list()[0].left == {a: _sha(b"two\n")}


def test_a_write_not_made_leaves_what_the_last_one_left(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env, cps = _env(tmp_path)
    cps.begin(0, 0, "write one")
    write_file_impl(env, "a.txt", "one\n")
    cps.begin(1, 2, "write two")
    monkeypatch.setattr(edits, "atomic_write_bytes", _full)
    assert write_file_impl(env, "a.txt", "two\n").startswith("could not write a.txt")
    monkeypatch.undo()
    assert (env.cwd / "a.txt").read_text() == "one\n"
    for later in (cps, Checkpoints(tmp_path / "store")):
        assert later.list()[1].left == {}
        assert later.changed(0) == []  # as the agent left it: nothing to keep from a rewind


def test_a_list_that_cannot_be_saved_before_a_write_claims_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env, cps = _env(tmp_path)
    cps.begin(0, 0, "write one")
    write_file_impl(env, "a.txt", "one\n")
    cps.begin(1, 2, "write two")
    def no_room_for_the_list(path: Path, data: bytes, mode: int | None = None) -> None:
        (_full if Path(path).name == "checkpoints.json" else atomic_write_bytes)(path, data, mode)

    monkeypatch.setattr(checkpoint_store, "atomic_write_bytes", no_room_for_the_list)  # its version is kept
    with pytest.raises(OSError):
        write_file_impl(env, "a.txt", "two\n")
    monkeypatch.undo()
    assert (env.cwd / "a.txt").read_text() == "one\n"
    assert cps.list()[1].left == {}
    cps.begin(2, 4, "what now")  # saved again
    assert Checkpoints(tmp_path / "store").changed(0) == []


def test_a_write_killed_after_the_list_was_saved_is_not_taken_for_a_hand_edit(tmp_path: Path) -> None:
    """The list names what the write leaves before the file is written; a kill between the two (no
    clean-up runs) leaves the list saying so and the file as it was. The next run's /rewind must not
    take the agent's own file for one changed by hand (nor keep a copy of it)."""
    env, cps = _env(tmp_path)
    cps.begin(0, 0, "write one")
    assert "could not" not in write_file_impl(env, "a.txt", "one\n")
    cps.begin(1, 2, "write two")
    cps.before_write(env.cwd / "a.txt", b"two\n")  # what _commit does first; then the kill
    later = Checkpoints(tmp_path / "store")  # the next run
    assert later.list()[1].left == {str((env.cwd / "a.txt").resolve()): _sha(b"two\n")}  # the list says written
    assert (env.cwd / "a.txt").read_text() == "one\n"
    assert later.changed(0) == [] and later.changed(1) == []
    (env.cwd / "a.txt").write_text("changed by hand\n")
    assert later.changed(1) == [(env.cwd / "a.txt").resolve()]  # a real hand edit still is one


class _Killed(BaseException):
    """A kill: nothing after it runs (no clean-up saves the list)."""


def _second_write_killed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, landed: bool) -> tuple[ToolEnv, Path]:
    """Turn 1 writes a.txt twice; the run is killed during the second write, once the file holds
    it (`landed`) or before the file is written. Turn 0 wrote "one\\n" to it."""
    env, cps = _env(tmp_path)
    cps.begin(0, 0, "write one")
    assert "could not" not in write_file_impl(env, "a.txt", "one\n")
    cps.begin(1, 2, "write two and three")
    assert "could not" not in write_file_impl(env, "a.txt", "two\n")
    a = env.cwd / "a.txt"

    def killed_once_written(path: Path, data: bytes, mode: int | None = None) -> None:
        if Path(path).name == "checkpoints.json" and a.read_bytes() == b"three\n":
            raise _Killed  # the file is on disk, the list after it is not
        atomic_write_bytes(path, data, mode)

    def killed_before_the_file(path: Path, data: bytes, mode: int | None = None, **_: Any) -> None:
        raise _Killed

    monkeypatch.setattr(checkpoint_store, "atomic_write_bytes", killed_once_written)
    if not landed:
        monkeypatch.setattr(edits, "atomic_write_bytes", killed_before_the_file)
        monkeypatch.setattr(cps, "wrote", lambda path, data: None)  # a kill: `_commit`'s clean-up never runs
    with pytest.raises(_Killed):
        write_file_impl(env, "a.txt", "three\n")
    monkeypatch.undo()
    assert a.read_text() == ("three\n" if landed else "two\n")
    return env, a.resolve()


@pytest.mark.parametrize("landed", [True, False], ids=["after-the-file", "before-the-file"])
def test_a_second_write_in_a_turn_killed_before_the_list_is_saved_is_not_taken_for_a_hand_edit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, landed: bool) -> None:
    """A later write of a file in a turn: the list must name what it leaves before the file is
    written, and still what the write before it left while it is out. Killed in between, with the
    file holding either, the next run's /rewind takes it as the agent's and puts back the right one."""
    env, a = _second_write_killed(tmp_path, monkeypatch, landed=landed)
    later = Checkpoints(tmp_path / "store")  # the next run
    assert later.changed(0) == [] and later.changed(1) == []  # before the fix: [a] (called changed by hand)
    later.rewind(1)
    assert a.read_text() == "one\n"  # as turn 1 began


def test_a_hand_edit_after_a_killed_second_write_is_still_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env, a = _second_write_killed(tmp_path, monkeypatch, landed=True)
    a.write_text("changed by hand\n")
    later = Checkpoints(tmp_path / "store")
    assert later.changed(0) == [a] and later.changed(1) == [a]


def test_a_second_write_made_settles_the_list_on_what_it_left(tmp_path: Path) -> None:
    """Once the later write is made and the list saved, only what it left is the agent's: the file
    put back by hand as the first write left it is a hand edit again."""
    env, cps = _env(tmp_path)
    cps.begin(0, 0, "write one")
    assert "could not" not in write_file_impl(env, "a.txt", "one\n")
    assert "could not" not in write_file_impl(env, "a.txt", "two\n")
    later = Checkpoints(tmp_path / "store")
    assert later.changed(0) == []
    a = (env.cwd / "a.txt").resolve()
    a.write_text("one\n")
    assert later.changed(0) == [a]


def test_a_killed_second_write_stays_the_agents_when_its_checkpoint_is_dropped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rewrite of the history that drops turn 1 gives what it saved and wrote to turn 0, the write cut short too."""
    env, a = _second_write_killed(tmp_path, monkeypatch, landed=True)
    later = Checkpoints(tmp_path / "store")
    dropped, _gone = later.follow([ModelRequest(parts=[UserPromptPart("write one")])])  # turn 1's place is gone
    assert [c.prompt for c in dropped] == ["write two and three"]
    assert later.changed(0) == []
    later.rewind(0)
    assert not a.exists()  # as turn 0 began


def test_a_list_from_before_writes_were_named_in_flight_loads(tmp_path: Path) -> None:
    """A list an older version saved has no `writing`: it loads, and rewinds as before."""
    env, _cps = _env(tmp_path)
    a = env.cwd / "a.txt"
    a.write_text("two\n")
    key = str(a.resolve())
    entry = {"index": 0, "time": 1.0, "prompt": "write", "history_len": 0, "turn_index": 0,
             "saved": {key: None}, "left": {key: _sha(b"two\n")}}
    (tmp_path / "store").mkdir(mode=0o700)
    (tmp_path / "store" / "checkpoints.json").write_text(json.dumps({"version": 1, "checkpoints": [entry]}))
    later = Checkpoints(tmp_path / "store")
    assert later.list()[0].writing == {} and later.changed(0) == []
    a.write_text("by hand\n")
    assert later.changed(0) == [a.resolve()]
    later.rewind(0)
    assert not a.exists()
