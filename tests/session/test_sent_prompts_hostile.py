"""The record of sent prompts (`sent_prompts/<session>.jsonl` beside a project's sessions) is read as
the other files kept beside a session are: 100,000 `[` in it ended `compact-agent sessions` in a
RecursionError traceback, and a FIFO in its place made `sessions` wait for ever to read it."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from compact_agent.session.typed import FOLDER, first_as_typed

SID = "20261205-101010-abcdef"


def ends_within(seconds: float, work: Callable[[], object]) -> object:
    """What `work` returns, run in a thread; fails the test when it is still running after `seconds`
    (it would wait for ever: the thread is left to the process's end)."""
    out: list[object] = []
    t = threading.Thread(target=lambda: out.append(work()), daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), "still waiting"
    return out[0] if out else None


def test_a_record_of_nested_brackets_is_no_record(tmp_path: Path) -> None:
    (tmp_path / FOLDER).mkdir()
    (tmp_path / FOLDER / f"{SID}.jsonl").write_text("[" * 100_000 + "\n")
    assert first_as_typed(tmp_path, SID, "Review the code") == "Review the code"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_in_the_records_place_is_not_waited_on(tmp_path: Path) -> None:
    (tmp_path / FOLDER).mkdir(mode=0o700)
    os.mkfifo(tmp_path / FOLDER / f"{SID}.jsonl")
    assert ends_within(5, lambda: first_as_typed(tmp_path, SID, "Review the code")) == "Review the code"
