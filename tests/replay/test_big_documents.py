"""A JSON transcript larger than the analyzer reads whole is said to be so, not 'not a transcript'."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compact_agent.replay import importers
from compact_agent.replay.batch import load_or_note


@pytest.mark.parametrize("indent", [None, 1])
def test_a_json_document_over_the_limit_is_skipped_saying_why(tmp_path: Path, monkeypatch, indent: int | None) -> None:
    """A trajectory, a chat list or a Cline history over MAX_DOCUMENT_BYTES (a SWE-agent run's long
    observations, a task's screenshots) was skipped as 'not a transcript', and the person took their
    file for one of a format the analyzer does not read."""
    monkeypatch.setattr(importers, "MAX_DOCUMENT_BYTES", 64 << 10)
    chat = [{"role": "user", "content": "hi " * 30_000}, {"role": "assistant", "content": "hello"}]
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(chat, indent=indent))
    assert load_or_note(path) == (f"skipped {path}: a JSON document of 0.1 MB, more than the 0.1 MB the analyzer "
                                  "reads whole: not read")
    monkeypatch.setattr(importers, "MAX_DOCUMENT_BYTES", 1 << 20)  # within the limit: read as before
    assert not isinstance(load_or_note(path), str)


def test_json_lines_over_the_limit_are_read_line_by_line(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(importers, "MAX_DOCUMENT_BYTES", 1 << 10)
    path = tmp_path / "chat.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in [{"role": "user", "content": "hi " * 1_000},
                                                           {"role": "assistant", "content": "hello"}]))
    assert not isinstance(load_or_note(path), str)
