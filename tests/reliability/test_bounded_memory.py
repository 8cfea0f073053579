"""Huge inputs cost bounded memory: a line far over the caps is skipped or cut while reading, never
held whole. The caps are made small here, so a few MB stand for gigabytes and CI stays fast."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from compact_agent.agent.safety.permissions import Permissions
from compact_agent.agent.tools.base import ToolEnv
from compact_agent.agent.tools.file_state import ReadFileState
from compact_agent.agent.tools.files import read_file_text
from compact_agent.config import Settings
from compact_agent.replay import importers
from compact_agent.replay.batch import load_or_note

BIG = 4 << 20  # one line of 4 MiB


def peak(fn: Callable[[], Any]) -> tuple[Any, int]:
    tracemalloc.start()
    try:
        out = fn()
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_analyze_skips_an_over_long_line_without_holding_it(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(importers, "MAX_LINE_BYTES", 64 << 10)
    monkeypatch.setattr(importers, "MAX_DOCUMENT_BYTES", 64 << 10)
    user = '{"type":"user","uuid":"u1","timestamp":"2026-01-01T10:00:00Z","message":{"role":"user","content":"hi"}}\n'
    answer = ('{"type":"assistant","uuid":"a1","timestamp":"2026-01-01T10:00:01Z","message":{"id":"m1","role":'
              '"assistant","content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":5,"output_tokens":1}}}\n')
    path = tmp_path / "session.jsonl"
    with path.open("w") as f:
        f.write(user)
        f.write('{"type":"user","pad":"' + "x" * BIG + '"}\n')
        f.write(answer)
    loaded, top = peak(lambda: load_or_note(path))
    assert not isinstance(loaded, str), loaded
    assert loaded.skipped == 1 and len(loaded.messages) == 2
    assert top < BIG // 4, top


def test_analyze_on_a_file_of_nuls_is_a_note_not_gigabytes(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(importers, "MAX_LINE_BYTES", 64 << 10)
    path = tmp_path / "sparse.jsonl"
    with path.open("wb") as f:
        f.truncate(BIG)  # sparse: no blocks on disk, 4 MiB of NULs to read
    note, top = peak(lambda: load_or_note(path))
    assert isinstance(note, str) and note.startswith(f"skipped {path}")
    assert top < BIG // 4, top


def test_read_file_slice_of_a_single_line_file_reads_a_few_kb(tmp_path: Path) -> None:
    cwd = tmp_path / "work"
    cwd.mkdir()
    (cwd / "one.txt").write_text("a" * BIG)
    env = ToolEnv(cwd, Settings(read_max_bytes=100_000), ReadFileState(), Permissions(cwd, "yes"))
    out, top = peak(lambda: read_file_text(env, "one.txt", offset=1, limit=5))
    assert "line truncated" in out and len(out) < 3_000
    assert top < BIG // 4, top
