"""The project's prompt history names the session of each entry, and a removal's rewrite of it
loses no entry another REPL appends meanwhile (both hold the file's lock)."""

from __future__ import annotations

import fcntl
import os
import threading
from datetime import datetime
from pathlib import Path

import pytest

from compact_agent.session import prompt_history

AT = datetime(2026, 12, 4, 12, 0)


def test_an_append_waiting_for_a_rewrite_goes_to_the_file_that_replaced_it(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "prompt_history"
    prompt_history.append(path, "gone", "a", now=lambda: AT)
    held = os.open(path, os.O_RDWR)
    fcntl.flock(held, fcntl.LOCK_EX)  # as a removal holds it while it rewrites
    opened, real = threading.Event(), fcntl.flock

    def flock(fd: int, op: int) -> None:
        opened.set()  # the writer has the old file open, and waits for its lock
        real(fd, op)

    monkeypatch.setattr(prompt_history.fcntl, "flock", flock)
    writer = threading.Thread(target=prompt_history.append, args=(path, "typed meanwhile", "b"),
                              kwargs={"now": lambda: AT})
    writer.start()
    assert opened.wait(10)
    new = tmp_path / "new"
    new.write_bytes(b"")
    os.replace(new, path)  # the rewrite, renamed over the file the writer opened
    fcntl.flock(held, fcntl.LOCK_UN)
    os.close(held)
    writer.join(10)
    assert path.read_bytes() == b"\n# 2026-12-04 12:00:00 session=b\n+typed meanwhile\n"


def test_an_entry_names_its_session_and_an_old_one_none(tmp_path: Path) -> None:
    path = tmp_path / "prompt_history"
    path.write_bytes(b"\n# 2026-01-01 10:00:00.000000\n+old\n")
    prompt_history.append(path, "two\nlines", "20261204-120000-abcdef", now=lambda: AT)
    prompt_history.append(path, "no session yet", None, now=lambda: AT)
    assert path.read_bytes() == (b"\n# 2026-01-01 10:00:00.000000\n+old\n"
                                 b"\n# 2026-12-04 12:00:00 session=20261204-120000-abcdef\n+two\n+lines\n"
                                 b"\n# 2026-12-04 12:00:00\n+no session yet\n")
    entry = len(b"\n# 2026-12-04 12:00:00 session=20261204-120000-abcdef\n+two\n+lines\n")
    assert prompt_history.drop_session(path, "20261204-120000-abcdef", dry=True) == (1, entry)
    assert prompt_history.drop_session(path, "20261204-120000-abcdef") == (1, entry)
    assert path.read_bytes() == b"\n# 2026-01-01 10:00:00.000000\n+old\n\n# 2026-12-04 12:00:00\n+no session yet\n"
    assert prompt_history.drop_session(path, "20261204-120000-abcdef") == (0, 0)


def test_an_append_is_fsynced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "prompt_history"
    synced: list[bytes] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        synced.append(path.read_bytes() if os.fstat(fd).st_ino == os.stat(path).st_ino else b"")
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    prompt_history.append(path, "typed", "a", now=lambda: AT)
    assert synced == [b"\n# 2026-12-04 12:00:00 session=a\n+typed\n"]


def test_a_killed_removals_temp_goes_with_the_next_write_holding_the_lock(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A `sessions --delete` killed while it rewrote the history left its temp: the next append, or
    removal, takes it, once it holds the lock that every rewrite holds while its temp is there (then
    none is being written); a dry run and the files of others stay."""
    path = tmp_path / "prompt_history"
    prompt_history.append(path, "kept", "a", now=lambda: AT)
    temp = tmp_path / ".prompt_history.0a1b2c3d.tmp"
    others = [tmp_path / ".prompt_history.tmp", tmp_path / ".prompt_history.x.tmp", tmp_path / ".s1.jsonl.0a1b2c3d.tmp"]
    real, locked = fcntl.flock, []

    def flock(fd: int, op: int) -> None:
        locked.append(temp.exists())  # not removed before the lock is held
        real(fd, op)

    monkeypatch.setattr(fcntl, "flock", flock)
    for p in [temp, *others]:
        p.write_bytes(b"half a rewrite")
    assert prompt_history.drop_session(path, "a", dry=True) == (1, len(b"\n# 2026-12-04 12:00:00 session=a\n+kept\n"))
    assert temp.exists()
    prompt_history.append(path, "typed", "b", now=lambda: AT)
    assert not temp.exists() and all(p.exists() for p in others)
    temp.write_bytes(b"half a rewrite")
    assert prompt_history.drop_session(path, "nobody") == (0, 0)
    assert not temp.exists() and all(p.exists() for p in others)
    assert locked == [True, True, True]
