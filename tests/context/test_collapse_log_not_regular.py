"""The collapse layer's log is read and appended to only as a regular file: a FIFO put in its place
waited for a writer forever (a resumed session hung), a link to /dev/zero was read until memory ran
out, and a folder's warning said Python's words. Each is now a warning in words and no commits."""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

import pytest

from compact_agent.context.layers.collapse import Commit, ContextCollapse, append_log, read_log
from compact_agent.context.plumbing.settings import CompactionSettings


def _read_within(path: Path, seconds: float = 10.0) -> list | None:
    """read_log(path) in a thread; None when it has not returned in time (it waits on the path)."""
    out: list = []
    worker = threading.Thread(target=lambda: out.append(read_log(path)), daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        with open(os.open(path, os.O_WRONLY | os.O_NONBLOCK), "wb"):  # let the blocked read go
            pass
        worker.join(seconds)
        return None
    return out[0]


def test_a_fifo_in_place_of_the_log_is_no_log(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    log = tmp_path / "commits.jsonl"
    os.mkfifo(log)
    with caplog.at_level(logging.WARNING):
        assert _read_within(log) == []
        layer = ContextCollapse(CompactionSettings(), log)
    assert layer.commits == []
    assert f"cannot read collapse log {log}: not a regular file" in caplog.text


@pytest.mark.parametrize("kind", ["dev-zero", "folder"])
def test_a_device_or_folder_in_place_of_the_log_is_said_in_words(tmp_path: Path, kind: str,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    log = tmp_path / "commits.jsonl"
    if kind == "folder":
        log.mkdir()
    else:
        log.symlink_to("/dev/zero")
    with caplog.at_level(logging.WARNING):
        assert _read_within(log) == []
    assert f"cannot read collapse log {log}: not a regular file" in caplog.text
    assert "Errno" not in caplog.text


def test_a_fifo_in_place_of_the_log_takes_no_commit(tmp_path: Path) -> None:
    """Appending to a FIFO took lines until its buffer filled, then waited: refused at once."""
    log = tmp_path / "commits.jsonl"
    os.mkfifo(log)
    commit = Commit("c1", "m1", "m2", "digest", "2026-01-01T00:00:00+00:00")
    with pytest.raises(OSError, match="not a regular file"):
        append_log(log, commit)
