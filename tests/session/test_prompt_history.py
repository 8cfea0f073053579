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
