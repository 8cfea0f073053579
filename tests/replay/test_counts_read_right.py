"""Counts in what `analyze` prints read as English: `1 transcript`, `1 recorded request`, `1 response`."""

from __future__ import annotations

import json
from pathlib import Path

from compact_agent.replay import load_transcript
from compact_agent.replay.finding import find_files

from .test_cli_analyze import cli
from .test_importer_traps import CLAUDE_SESSION, CODEX_SESSION, write_jsonl

ONE_EXCHANGE = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]


def test_one_transcript_of_one_request_is_counted_in_the_singular(tmp_path: Path) -> None:
    (tmp_path / "one.json").write_text(json.dumps(ONE_EXCHANGE))
    totals = cli("one.json", "-s", "ours", "--totals", "--plot", "chart.svg", cwd=tmp_path)
    assert totals.returncode == 0, totals.stderr
    assert "Total over 1 transcript\n" in totals.stdout and "1 transcripts" not in totals.stdout
    assert "Context tokens per request: 1 transcript, window" in (tmp_path / "chart.svg").read_text()
    tables = cli("one.json", "-s", "ours", cwd=tmp_path)
    assert "openai-chat, 1 recorded request;" in tables.stdout and "1 recorded requests" not in tables.stdout


def test_the_importers_warnings_count_one_in_the_singular(tmp_path: Path) -> None:
    claude = load_transcript(write_jsonl(tmp_path / "session.jsonl", CLAUDE_SESSION[:18])).warnings  # 1 of each
    assert "1 message typed while the agent was working was never sent to the model: left out" in claude
    assert ("imported 1 message typed while the agent was working, which Claude Code recorded only in its queue of "
            "pending input") in claude
    assert not any("queue-operation" in w for w in claude)  # Claude Code's record type, not a user's word
    assert "1 response has only part of its output counted (Claude Code wrote the usage down before the reply had " \
           "finished streaming): output tokens and costs are a lower bound" in claude, claude
    assert not any("output_tokens" in w or "metadata" in w for w in claude)  # a user's words, no internal key
    codex = load_transcript(write_jsonl(tmp_path / "rollout.jsonl", CODEX_SESSION)).warnings
    assert ("left out 1 web search OpenAI ran for Codex on its own servers: the file records that it ran but not "
            "what it found, so every strategy is replayed without it") in codex
    assert not any("web_search_call" in w or "server-side" in w for w in codex)  # the rollout's item type: no user's word
    search = next(r for r in CODEX_SESSION if r["payload"].get("type") == "web_search_call")
    at = CODEX_SESSION.index(search)
    two = load_transcript(write_jsonl(tmp_path / "two.jsonl", [*CODEX_SESSION[:at], search, *CODEX_SESSION[at:]]))
    assert ("left out 2 web searches OpenAI ran for Codex on its own servers: the file records that they ran but not "
            "what they found, so every strategy is replayed without them") in two.warnings


def test_one_archive_left_out_is_one(tmp_path: Path) -> None:
    (tmp_path / "compact-history").mkdir()
    (tmp_path / "compact-history" / "a.jsonl").write_text("{}\n")
    (tmp_path / "one.json").write_text(json.dumps(ONE_EXCHANGE))
    notes = find_files([tmp_path]).notes
    assert notes == ["skipped 1 compaction archive in compact-history/: each session file is replayed in full "
                     "from them"]


def test_the_repairs_of_a_history_count_one_in_the_singular() -> None:
    from pydantic_ai.messages import (
        ModelRequest,
        ModelResponse,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )

    from compact_agent.replay._validity import make_valid

    raw = [ModelRequest(parts=[UserPromptPart("go")]),
           ModelResponse(parts=[ToolCallPart("read", {"path": "a"}, tool_call_id="lost")]),
           ModelRequest(parts=[ToolReturnPart("read", "x", tool_call_id="stray")]),
           ModelResponse(parts=[TextPart("done")])]
    _, notes = make_valid(raw)
    said = " | ".join(notes)
    assert "dropped 1 tool call that never got a result" in said, said
    assert "dropped 1 tool result without a preceding open call" in said, said
    assert "1 tool calls" not in said and "1 tool results" not in said


def test_a_transcript_without_recorded_usage_is_not_given_a_formula_that_says_nothing(tmp_path: Path) -> None:
    """'size = 1.00 × estimate + 0 overhead; no recorded usage: sizes are our estimate with no
    overhead' said the same thing twice, the first time as a formula."""
    (tmp_path / "one.json").write_text(json.dumps(ONE_EXCHANGE))
    out = cli("one.json", "-s", "ours", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "openai-chat, 1 recorded request; no recorded usage: sizes are our estimate, tool definitions not counted" in out.stdout
    assert "× estimate" not in out.stdout
