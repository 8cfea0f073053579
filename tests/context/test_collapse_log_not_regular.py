"""The files the library keeps beside a conversation are read only as regular files: a FIFO put in
the collapse log's place waited for a writer forever (a resumed session hung), a link to /dev/zero
was read until memory ran out, and a folder's warning said Python's words. Each is now a warning in
words and no commits; the session notes and a spilled tool result are read the same way."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import ToolReturnPart

from compact_agent.context.compaction.notes_state import read_notes as _read_notes
from compact_agent.context.layers.budget import ToolResultBudget
from compact_agent.context.layers.collapse import Commit, ContextCollapse, append_log, read_log
from compact_agent.context.plumbing.settings import CompactionSettings

TIMED_OUT = "still waiting on the path"


def _read_within(path: Path, seconds: float = 10.0, read: Callable[[Path], Any] = read_log) -> Any:
    """read(path) in a thread; TIMED_OUT when it has not returned in time (it waits on the path)."""
    out: list[Any] = []
    worker = threading.Thread(target=lambda: out.append(read(path)), daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))  # a writer's open lets the blocked read go
        worker.join(seconds)
        return TIMED_OUT
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


def test_fifos_in_place_of_the_notes_and_a_spilled_result_are_unreadable(tmp_path: Path) -> None:
    notes, spill_dir = tmp_path / "notes.md", tmp_path / "tool-results"
    os.mkfifo(notes)
    assert _read_within(notes, read=_read_notes) is None  # read at once, and found unreadable
    layer = ToolResultBudget(CompactionSettings(), spill_dir)
    spilled = layer._path("c1")
    assert spilled is not None
    spill_dir.mkdir()
    os.mkfifo(spilled)
    layer.replacements["c1"], layer.actions["c1"] = "preview", {"path": str(spilled)}
    part = ToolReturnPart("read_file", "preview", tool_call_id="c1")
    assert _read_within(spilled, read=lambda _: layer._whole_text(part, "preview")) is None
