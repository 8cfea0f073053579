"""The analyzer does not say of a compaction's archive where 'the last run' stopped: an archive is the
conversation as the compaction found it, after the model's tool calls as often as not. `make demo`
ended with 'warning: …: the last run stopped after the model's tool calls, before it answered their
results (interrupted, killed or out of turns): your next message goes on from there', once for each
of its four archives. What else a load of an archive says is still said."""

from __future__ import annotations

import io
import tempfile

from rich.console import Console

from compact_agent import demo
from compact_agent.replay._compact_agent import _archive_warnings


def test_the_demo_replay_says_nothing_of_where_its_archives_stop(tmp_path, monkeypatch):
    out = io.StringIO()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(demo.render, "make_console", lambda markup=False: Console(file=out, width=200, markup=markup))
    monkeypatch.delenv("COMPACT_AGENT_DEMO_KEEP", raising=False)
    demo.main()
    said = out.getvalue()
    assert "rebuilt the full conversation across" in said
    said = " ".join(said.split())
    assert "before it answered their results" not in said and "your next message goes on" not in said, said


def test_an_archive_keeps_its_other_warnings():
    stopped = ("the last run stopped after the model's tool calls, before it answered their results "
               "(interrupted, killed or out of turns): your next message goes on from there")
    unanswered = "1 message you typed got no answer before the last run ended: it is in the conversation, unanswered"
    assert _archive_warnings([f"a.jsonl: {stopped}", f"b.jsonl: {unanswered}"]) == []
    assert _archive_warnings([f"a.jsonl: skipped 2 unreadable lines; {stopped}"]) == ["a.jsonl: skipped 2 unreadable lines"]
