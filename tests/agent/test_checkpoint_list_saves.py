"""A file's first write in a turn writes the checkpoint list once: before the file, naming both the
version it saved and what the write leaves (the list was written again right after the file, for
the second alone). A write that is not made takes back what it was to leave, in memory and on disk:
a later /rewind takes the file as the agent left it, not as changed by hand since."""

from __future__ import annotations

import errno
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

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


def _full(path: Path, data: bytes, mode: int | None = None, *, checked: bool = False) -> None:
    raise OSError(errno.ENOSPC, "No space left on device", str(path))


def test_a_first_write_in_a_turn_writes_the_list_once_before_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env, cps = _env(tmp_path)
    index = tmp_path / "store" / "checkpoints.json"
    lists: list[Any] = []
    on_disk: list[Any] = []  # the list on disk as the file is written

    def list_write(path: Path, data: bytes, mode: int | None = None) -> None:
        lists.append(json.loads(data)) if Path(path).name == "checkpoints.json" else None
        atomic_write_bytes(path, data, mode)

    def file_write(path: Path, data: bytes, mode: int | None = None, *, checked: bool = False) -> None:
        on_disk.append(json.loads(index.read_bytes())["checkpoints"][-1])
        atomic_write_bytes(path, data, mode, checked=checked)

    monkeypatch.setattr(checkpoint_store, "atomic_write_bytes", list_write)
    monkeypatch.setattr(edits, "atomic_write_bytes", file_write)
    cps.begin(0, 0, "write one")
    lists.clear()
    a = str((env.cwd / "a.txt").resolve())
    assert "could not" not in write_file_impl(env, "a.txt", "one\n")
    assert len(lists) == 1
    assert (on_disk[0]["saved"], on_disk[0]["left"]) == ({a: None}, {a: _sha(b"one\n")})
    assert "could not" not in write_file_impl(env, "a.txt", "two\n")  # a later write: once, after the file
    assert len(lists) == 2 and lists[1]["checkpoints"][-1]["left"] == {a: _sha(b"two\n")}
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
