"""`make demo`: readable figures, docstrings cut at words, and no folder left behind."""

from __future__ import annotations

import io
import tempfile

from rich.console import Console

from compact_agent import demo


def test_words_cuts_at_a_word_boundary():
    text = "Session files: append-only JSONL, archived before any compaction"
    assert demo._words("short", 40) == "short"
    cut = demo._words(text, 40)
    assert cut == "Session files: append-only JSONL,…".replace(",…", "…")
    assert len(cut) <= 40


def test_demo_prints_figures_not_dicts_and_removes_its_folder(tmp_path, monkeypatch):
    out = io.StringIO()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(demo.render, "make_console", lambda markup=False: Console(file=out, width=200, markup=markup))
    monkeypatch.delenv("COMPACT_AGENT_DEMO_KEEP", raising=False)
    demo.main()
    text = out.getvalue()
    assert "compactions in this session:" in text and "tokens freed per layer: " in text
    assert "{'" not in text  # no raw dict
    assert not list(tmp_path.glob("compact-agent-demo-*"))
