"""The JSONL logs kept beside a session are appended after a torn last line on a line of their own:
a line cut by a crash or a full disk lost the line appended next with it, both one unreadable line."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from compact_agent.appended_lines import append_line
from compact_agent.session.event_log import EventLog
from compact_agent.session.typed import Noted, entries, record_path
from compact_agent.ui.sent_record import save


def test_a_prompt_sent_after_a_crash_is_recorded_readable(tmp_path: Path) -> None:
    path = record_path(tmp_path, "s1")
    assert path is not None
    path.parent.mkdir()
    whole = {"checkpoint": 0, "preview": "first", "line": "first", "pasted": {}, "lead": "", "trail": ""}
    path.write_text(json.dumps(whole) + "\n" + json.dumps(whole)[:30])  # the run died mid-append
    save(tmp_path, "s1", 1, "look: x what failed?", Noted("look: [pasted 1 lines] what failed?", {"[pasted 1 lines]": 1}))
    assert [(at, was) for at, was, _ in entries(tmp_path, "s1")] == [(1, "look: x what failed?"), (0, "first")]


def test_an_event_after_a_torn_line_is_read_back(tmp_path: Path) -> None:
    log = EventLog(tmp_path, clock=lambda: "t")
    log.append({"layer": "snip", "action": "one"})
    with log.path.open("ab") as f:
        f.write(b'{"time": "t", "layer": "sn')  # a run killed mid-append
    log.append({"layer": "snip", "action": "two"})
    assert [e["action"] for e in log.read()] == ["one", "two"]


def test_a_short_write_leaves_the_next_line_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "log.jsonl"
    write = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: write(fd, data[:5]))  # the disk took 5 bytes
    append_line(path, b'{"n": 1}\n')
    monkeypatch.setattr(os, "write", write)  # room again
    append_line(path, b'{"n": 2}\n')
    assert path.read_bytes() == b'{"n":\n{"n": 2}\n'


def test_a_fifo_in_the_files_place_is_refused_at_once(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    os.mkfifo(path)
    with pytest.raises(OSError):
        append_line(path, b'{"n": 1}\n')
