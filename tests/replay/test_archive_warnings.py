"""The analyzer does not say of a compaction's archive where 'the last run' stopped: an archive is the
conversation as the compaction found it, after the model's tool calls as often as not. `make demo`
ended with 'warning: …: the last run stopped after the model's tool calls, before it answered their
results (interrupted, killed or out of turns): your next message goes on from there', once for each
of its four archives. What else a load of an archive says is still said."""

from __future__ import annotations

import io
import tempfile

from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart, UserPromptPart
from rich.console import Console

from compact_agent import demo
from compact_agent.session.store import SessionStore


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


def test_an_archive_keeps_its_other_warnings(tmp_path):
    """Read as an archive, a session file says nothing of where it stops, and still says a torn line."""
    s = SessionStore(tmp_path, "s1")
    s.append([ModelRequest(parts=[UserPromptPart("fix the parser")]),
              ModelResponse(parts=[ToolCallPart("read_file", {"path": "p.py"}, tool_call_id="c1")]),
              ModelRequest(parts=[ToolReturnPart("read_file", "def parse(): ...", tool_call_id="c1")])])
    loaded = SessionStore(tmp_path, "s1").load()
    assert len(loaded.warnings) == 1 and "before it answered their results" in loaded.warnings[0]
    assert loaded.archive_warnings == []  # as the session file it is read as, the warning stands
    with s.path.open("ab") as f:
        f.write(b"{torn\n")
    torn = SessionStore(tmp_path, "s1").load()
    assert torn.archive_warnings == ["s1.jsonl: skipped 1 unreadable line"], torn.archive_warnings
    assert "before it answered their results" in torn.warnings[0]
