"""Session memory end to end: `compact-agent -p` against the strict fake server compacts from its notes."""

from __future__ import annotations

import json

from compact_agent.context.compaction.memory import SessionMemory
from compact_agent.context.compaction.notes import SECTIONS
from compact_agent.context.compaction.summary import SUMMARY_HEAD
from compact_agent.session.store import load_session_file
from tests.fakes.openai_server import FakeOpenAIServer, message_text

from .scripted import TASK_ID, FileTaskAgent, is_notes_request, is_summary_request, make_project, task_text

N_FILES = 24
WINDOW = 16_000
CONSTRAINT = "Constraint: do not modify any file and answer in one line."


def test_long_task_compacts_from_session_notes_without_a_summary_call(cli):
    expected = make_project(cli.cwd, N_FILES)
    agent = FileTaskAgent(N_FILES)
    with FakeOpenAIServer(agent, window=WINDOW) as server:
        res = cli("-p", f"{task_text(N_FILES)} {CONSTRAINT}", "--model", "fake-model", "--base-url",
                  server.base_url, "--api-key", "sk-test", "--context-window", str(WINDOW), "--yes",
                  "--output-format", "json", env={"COMPACT_AGENT_COLLAPSE_ENABLED": "false", "COMPACT_AGENT_MEMORY_ENABLED": "true"})
    assert res.code == 0, res.stderr
    out = res.json()
    assert out["result"] == f"FINAL SUM: {expected}"
    assert not server.rejected, [r[2] for r in server.rejected]
    assert not agent.lost_task

    # Every compaction came from the notes: no summary request at all, at compaction time or any other.
    assert out["compactions"], "the task cannot fit the window without compaction"
    assert {c["strategy"] for c in out["compactions"]} == {"session_memory"}
    assert all(c["tokens_after"] < c["tokens_before"] for c in out["compactions"])
    assert not agent.summaries and not any(is_summary_request(r) for r in server.requests)
    assert agent.notes and out["usage"]["memory_requests"] >= 1

    # Notes requests share the main conversation's prefix (a cache hit) and cannot act.
    main = [r for r in server.requests if not is_notes_request(r)]
    for notes in agent.notes:
        assert notes.tool_choice == "none"
        # The prefix is the last main request, plus its answer when that was text (the end of the turn).
        assert any(notes.messages[:len(r.messages)] == r.messages and len(r.messages) >= len(notes.messages) - 2
                   and r.tools == notes.tools for r in main)

    # After each compaction the model still has the task, the user's words and the progress.
    resumed = [r for r in main if any(SUMMARY_HEAD in message_text(m) for m in r.messages)]
    assert resumed
    for r in resumed:
        text = "\n".join(message_text(m) for m in r.messages)
        assert TASK_ID in text and CONSTRAINT in text and "PROGRESS: done through file_" in text

    # The notes live beside the session, private, with every section; the compaction took milliseconds.
    session_dir = cli.sessions()[0].with_suffix("")
    notes_path = session_dir / "notes.md"
    notes = notes_path.read_text()
    assert all(f"# {s}" in notes for s in SECTIONS) and TASK_ID in notes
    assert oct(notes_path.stat().st_mode & 0o777) == "0o600"
    events = [json.loads(line) for line in (session_dir / "events.jsonl").read_text().splitlines()]
    compactions = [e for e in events if e["layer"] == "compact" and e["action"] == "session_memory"]
    assert compactions and all(e["duration_ms"] < 1_000 for e in compactions)
    assert not [e for e in events if e["layer"] == "memory" and e["action"] == "failed"]

    # A restarted process finds where the notes end in the saved session (what `--continue` loads).
    saved = load_session_file(cli.sessions()[0])
    assert SessionMemory(notes_path).locate(saved.messages) is not None
