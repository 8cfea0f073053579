"""A subagent's conversation, a file of its own, is replayed as any session (its requests are real
ones, the figures count them) but is said to be one: in its caption, in the totals' heading and in
`--json`. Each agent marks such a file its own way: Claude Code's `subagents/agent-*.jsonl` (every
line `isSidechain`), a Cline SDK conversation whose `agent` is a subagent or teammate, a Gemini CLI
chat whose metadata's `kind` is `subagent`, a Codex rollout whose `session_meta.source` is a subagent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compact_agent.replay import load_transcript

from .test_cli_analyze import cli
from .test_codex_rollouts import HEAD, THIRD
from .test_compaction_requests_counted import said, session_and_its_compaction_request
from .test_gemini_cli_chats import META, session_messages
from .test_importer_traps import CLAUDE_SESSION, cx, write_jsonl


def sidechain(records: list[dict[str, Any]], agent: str) -> list[dict[str, Any]]:
    """The lines of a Claude Code subagent's own file: each of its messages marked, with its agent's id."""
    return [{**r, "agentId": agent, "isSidechain": True} if r.get("type") in ("user", "assistant") else r
            for r in records]


def test_the_totals_and_the_caption_say_which_transcripts_are_subagents_conversations(tmp_path: Path) -> None:
    """Before, 'Total over 3 transcripts (1 of them Claude Code compaction request, not sessions)': the
    subagent's conversation was one of the sessions, and its caption did not say what it was."""
    session_and_its_compaction_request(tmp_path)
    write_jsonl(tmp_path / "session" / "subagents" / "agent-a1b2c3d.jsonl", sidechain(CLAUDE_SESSION, "a1b2c3d"))
    out = cli(".", "-s", "ours", cwd=tmp_path, env={"COLUMNS": "80"})
    assert out.returncode == 0, out.stderr
    assert ("Total over 3 transcripts (1 of them a subagent's conversation; 1 Claude Code compaction request, "
            "not sessions)") in said(out.stdout)
    assert said(out.stdout).count("claude-code, a subagent's conversation,") == 1
    data = json.loads(cli(".", "-s", "ours", "--json", cwd=tmp_path).stdout)
    flags = {t["path"]: (t["subagent"], t["compaction_request"], t["requests"]) for t in data["transcripts"]}
    assert flags == {"session.jsonl": (False, False, 3),
                     "session/subagents/agent-a1b2c3d.jsonl": (True, False, 3),  # replayed as any session
                     "session/subagents/agent-acompact-abc123.jsonl": (False, True, 3)}
    totals = json.loads(cli(".", "-s", "ours", "--json", "--totals", cwd=tmp_path).stdout)
    assert (totals["transcripts"], totals["subagents"], totals["compaction_requests"]) == (3, 1, 1)


def test_each_format_marks_its_subagents_files(tmp_path: Path) -> None:
    gemini = [{**META, "kind": "main"}, *session_messages()]
    write_jsonl(tmp_path / "session-2026-01-10T09-00-5d1a2b3c.jsonl", gemini)
    write_jsonl(tmp_path / "b7e0c1d2.jsonl", [{**gemini[0], "kind": "subagent"}, *gemini[1:]])
    spawned = {"subagent": {"thread_spawn": {"parent_thread_id": "s", "depth": 1}}}
    for name, source in (("main", "cli"), ("spawned", spawned), ("review", {"subagent": "review"})):
        write_jsonl(tmp_path / f"rollout-2026-03-01T10-00-00-{name}.jsonl",
                    [cx("session_meta", {"id": name, "source": source, "base_instructions": {"text": "You are Codex."}}),
                     *HEAD[1:], *THIRD])
    for agent in ("lead", "subagent", "teammate"):
        (tmp_path / f"{agent}.messages.json").write_text(json.dumps({
            "version": 1, "sessionId": "1760000000000_k3x9q", "agent": agent, "messages": [
                {"id": "u", "role": "user", "content": [{"type": "text", "text": '<user_input mode="act">go</user_input>'}]},
                {"id": "a", "role": "assistant", "content": [{"type": "text", "text": "done"}],
                 "metrics": {"inputTokens": 100, "outputTokens": 5}}]}))
    write_jsonl(tmp_path / "agent-a1b2c3d.jsonl", sidechain(CLAUDE_SESSION, "a1b2c3d"))
    write_jsonl(tmp_path / "session.jsonl", CLAUDE_SESSION)
    marked = {path.name: (t.format, t.subagent) for path in sorted(tmp_path.iterdir())
              if (t := load_transcript(path))}
    assert marked == {
        "session-2026-01-10T09-00-5d1a2b3c.jsonl": ("gemini-cli", False), "b7e0c1d2.jsonl": ("gemini-cli", True),
        "rollout-2026-03-01T10-00-00-main.jsonl": ("codex", False),
        "rollout-2026-03-01T10-00-00-spawned.jsonl": ("codex", True),
        "rollout-2026-03-01T10-00-00-review.jsonl": ("codex", True),
        "lead.messages.json": ("cline", False), "subagent.messages.json": ("cline", True),
        "teammate.messages.json": ("cline", True),
        "agent-a1b2c3d.jsonl": ("claude-code", True), "session.jsonl": ("claude-code", False)}
