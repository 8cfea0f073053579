"""A SIGTERM or SIGHUP while a file tool (or `/rewind`'s restore) writes a file leaves the user's
file as it was and no temp beside it. The handler ends the process by the signal's default action,
so the write's own clean-up never ran: `.<name>.<hex>.tmp`, as large as the write, stayed in the
project and nothing removed it. The handler now removes it (agent/tools/temp_files.py), and only it."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from compact_agent import stop_signals
from compact_agent.agent.tools import file_state, temp_files


@pytest.fixture
def at_the_end(monkeypatch, tmp_path) -> list[list[str]]:
    """What the project folder holds as the process ends (the handler's kill, which does not kill);
    nothing is said, no handler replaced."""
    out: list[list[str]] = []
    monkeypatch.setattr(stop_signals, "_say", lambda *a: None)
    monkeypatch.setattr(signal, "signal", lambda *a: None)
    monkeypatch.setattr(stop_signals.os, "kill", lambda pid, signum: out.append(sorted(os.listdir(tmp_path))))
    monkeypatch.setattr(stop_signals, "_state", stop_signals._State())
    return out


@pytest.mark.parametrize("checked", [True, False], ids=["file tool", "unchecked"])
def test_a_signal_during_a_write_leaves_the_file_as_it_was_and_no_temp(tmp_path, monkeypatch, at_the_end,
                                                                         checked) -> None:
    target = tmp_path / "big.txt"
    target.write_text("old version\n")
    fsync = os.fsync
    signalled: list[int] = []

    def signal_midway(fd: int) -> None:
        if not signalled:  # the temp is written, not yet renamed: the handler runs here
            signalled.append(fd)
            stop_signals._on_signal(signal.SIGTERM, None)
        fsync(fd)

    monkeypatch.setattr(file_state.os, "fsync", signal_midway)
    with pytest.raises(OSError):  # only here does the write go on after the end: its temp is gone
        file_state.atomic_write_bytes(target, b"new version\n" * 1000, checked=checked)
    assert at_the_end == [["big.txt"]]
    assert target.read_text() == "old version\n"
    assert not temp_files._writing


def test_ctrl_c_during_a_write_removes_the_temp_as_it_unwinds(tmp_path, monkeypatch) -> None:
    target = tmp_path / "big.txt"
    target.write_text("old version\n")

    def interrupted(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(file_state.os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        file_state.atomic_write_bytes(target, b"new version\n", checked=True)
    assert sorted(os.listdir(tmp_path)) == ["big.txt"] and target.read_text() == "old version\n"


def test_only_the_temp_the_write_created_is_removed(tmp_path: Path) -> None:
    tmp = tmp_path / ".a.txt.0123abcd.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with temp_files.being_written(str(tmp), fd):
            (tmp_path / "other").write_text("not ours")
            os.replace(tmp_path / "other", tmp)  # another file by that name now
            temp_files.remove_all()
            assert tmp.read_text() == "not ours"
            os.replace(tmp, tmp_path / "a.txt")  # renamed into place: nothing at the temp's name
            temp_files.remove_all()
            assert (tmp_path / "a.txt").read_text() == "not ours"
    finally:
        os.close(fd)
    assert not temp_files._writing
