"""`make demo`: readable figures, docstrings cut at words, no folder left behind, a compaction
seen live, and a reader that leaves early (`make demo | head`) ends it quietly."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

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
    # The demo promises a session that fills its window and compacts (README, `make demo`): unpriced,
    # the layers alone kept it under the threshold and it said `compactions in this session: 0`.
    compactions = re.search(r"compactions in this session: (\d+)", said)
    assert compactions is not None and int(compactions.group(1)) >= 1, said
    assert "compacted early (auto" in said and "priced as deepseek-chat" in said
    # The header's threshold is the first one: the compaction lines name a higher one once answers
    # prove short, and the header says it moves rather than read as a contradiction.
    start = re.search(r"auto-compact threshold ([\d,]+) at the start, raised as answers prove short", said)
    named = [int(t.replace(",", "")) for t in re.findall(r"more to the ([\d,]+) threshold", said)]
    assert start is not None and named and max(named) > int(start.group(1).replace(",", "")), said
    assert "{'" not in text  # no raw dict
    assert not list(tmp_path.glob("compact-agent-demo-*"))
    lines = text.splitlines()
    too_long = [line for line in lines if len(line) > 80 and not (line.strip().endswith(".jsonl") and " " not in line.strip())]
    assert not too_long, too_long  # only the session file's path, left whole for the terminal to wrap
    assert "a SCRIPTED STAND-IN model, all else real" in lines[0]  # the title, not cut to "…"
    header = next(line for line in lines if line.startswith("strategy"))
    assert "compact" in header and "kept u/f/last" in header and "…" not in header


def test_a_reader_that_leaves_early_ends_the_demo_quietly(tmp_path):
    """`make demo | head -3`: rich answered the closed pipe with SystemExit(1) from inside the turn
    (exit 1, and at times a program that never ended, the turn's worker thread still waiting)."""
    src = Path(demo.__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(src), "TMPDIR": str(tmp_path)}
    env.pop("COMPACT_AGENT_DEMO_KEEP", None)
    proc = subprocess.Popen([sys.executable, "-m", "compact_agent.demo"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, cwd=tmp_path)
    assert proc.stdout is not None and proc.stderr is not None
    assert "compact-agent demo" in proc.stdout.readline().decode()
    proc.stdout.close()  # the reader leaves, as `head -1` does
    try:
        code = proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError("the demo did not end after its reader left") from None
    assert (code, proc.stderr.read().decode()) == (141, "")
    assert not list(tmp_path.glob("compact-agent-demo-*"))
