"""A FIFO where the prompt history or the record of sent prompts goes does not hold the REPL: the
file was opened for writing without O_NONBLOCK, which waits for a reader that never comes (at start
for the history, after each prompt for the record). A file that is not a regular file is refused at
once: the record of a prompt is not kept (as after any failed write), the REPL's start says so in a
line naming the file."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from compact_agent.session.files import ensure_private_file
from compact_agent.session.typed import Noted, record_path
from compact_agent.ui import sent_record


class Held(BaseException):
    """The open waited for a reader: no OSError, which the code under test may swallow."""


@contextmanager
def within(seconds: int) -> Iterator[None]:
    """Fail instead of waiting for ever where the bug would block."""
    def stop(*_: object) -> None:
        raise Held

    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def test_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "history"
    os.mkfifo(fifo)
    with within(5), pytest.raises(OSError) as e:
        ensure_private_file(fifo)
    assert str(e.value) == f"[Errno 22] not a regular file: '{fifo}'"


def test_a_regular_file_is_made_private_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "history"
    assert ensure_private_file(path) == path
    assert path.read_bytes() == b"" and (path.stat().st_mode & 0o777) == 0o600
    path.write_bytes(b"kept\n")
    ensure_private_file(path)
    assert path.read_bytes() == b"kept\n"


def test_a_fifo_in_place_of_the_record_of_sent_prompts_does_not_hold_the_prompt(tmp_path: Path) -> None:
    path = record_path(tmp_path, "s1")
    assert path is not None
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    noted = Noted(line="/review q.py", lengths={})
    with within(5):
        sent_record.save(tmp_path, "s1", 1, "review q.py", noted)
