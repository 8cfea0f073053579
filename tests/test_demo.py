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
    # `make demo > file`: not a terminal, so 80 columns, as rich gives a file
    monkeypatch.setattr(demo.render, "make_console", lambda markup=False: Console(file=out, width=80, markup=markup))
    monkeypatch.delenv("COMPACT_AGENT_DEMO_KEEP", raising=False)
    demo.main()
    text = out.getvalue()
    said = " ".join(text.split())
    assert "compactions in this session:" in said and "tokens the layers freed: large tool results moved" in said
    assert "{'" not in text  # no raw dict
    assert not list(tmp_path.glob("compact-agent-demo-*"))
    lines = text.splitlines()
    too_long = [line for line in lines if len(line) > 80 and not (line.strip().endswith(".jsonl") and " " not in line.strip())]
    assert not too_long, too_long  # only the session file's path, left whole for the terminal to wrap
    assert "a SCRIPTED STAND-IN model, all else real" in lines[0]  # the title, not cut to "…"
    header = next(line for line in lines if line.startswith("strategy"))
    assert "compact" in header and "kept u/f/last" in header and "…" not in header
