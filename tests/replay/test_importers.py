"""The importers on the real transcripts in ``../shared/data`` (see its SOURCES.md for the counts used here;
tests/shared_data.py: SHARED_TRANSCRIPTS names the folder elsewhere)."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.replay.importers import Transcript, detect_format, load_transcript
from tests.shared_data import DATA, NO_DATA, requires_data

from ._helpers import assert_repair_is_noop, assert_valid_conversation, responses, tool_calls

FOLDER_FORMATS = {
    "claude-code": "claude-code",
    "codex": "codex",
    "mini-swe-agent-deepseek": "mini-swe-agent",
    "complexity-trap": "swe-agent",
}


def _real_files() -> list[Path]:
    if not DATA.is_dir():
        return []
    return sorted(
        [
            *DATA.glob("claude-code/*.jsonl"),
            *DATA.glob("claude-code/*/subagents/*.jsonl"),
            *DATA.glob("codex/raw/sessions/*.jsonl"),
            *DATA.glob("mini-swe-agent-deepseek/**/*.traj.json"),
            *DATA.glob("complexity-trap/swe-agent-trajectories/*.traj"),
        ]
    )


REAL_FILES = _real_files()
FILE_PARAMS = [pytest.param(p, id=str(p.relative_to(DATA))) for p in REAL_FILES] or [
    pytest.param(None, marks=pytest.mark.skip(reason=NO_DATA), id="no-data")
]


@functools.cache
def load(relative: str) -> Transcript:
    """Each file is parsed once per test session: the whole corpus then costs well under a second."""
    return load_transcript(DATA / relative)


def find(pattern: str) -> str:
    matches = [p for p in REAL_FILES if p.relative_to(DATA).match(pattern)]
    assert len(matches) == 1, f"{pattern}: {matches}"
    return str(matches[0].relative_to(DATA))


# --- every real file -----------------------------------------------------------------------------------


@pytest.mark.parametrize("path", FILE_PARAMS)
def test_real_file_loads_as_valid_conversation(path: Path) -> None:
    transcript = load(str(path.relative_to(DATA)))
    expected_format = FOLDER_FORMATS[path.relative_to(DATA).parts[0]]
    assert transcript.format == expected_format
    assert detect_format(path) == expected_format
    assert transcript.skipped == 0, transcript.warnings
    assert_valid_conversation(transcript.messages)
    assert_repair_is_noop(transcript.messages)
    for message in transcript.messages:
        assert message.timestamp is not None and message.timestamp.tzinfo is not None
    if expected_format == "swe-agent":  # only aggregate model_stats are recorded there
        assert all(r.usage.unmeasured_requests == 1 for r in responses(transcript.messages))
    else:  # every response of the other sources carries its own recorded usage
        for response in responses(transcript.messages):
            assert response.usage.unmeasured_requests == 0
            assert (
                response.usage.input_tokens
                >= response.usage.cache_read_tokens + response.usage.cache_write_tokens
            )
            assert response.usage.input_tokens > 0 and response.usage.output_tokens > 0
            assert response.model_name


# --- Claude Code ------------------------------------------------------------------------------------------

# SOURCES.md table: tool calls, compaction (trigger, preTokens), summary chars.
CLAUDE_CODE_TABLE = {
    "258c7280-*.jsonl": (186, ("auto", 167_094), 14_518),
    "4d5611e5-*.jsonl": (150, ("auto", 170_251), 15_743),
    "8463c716-*.jsonl": (177, ("auto", 167_731), 12_181),
    "short.jsonl": (2, None, None),
    "tool_heavy.jsonl": (6, None, None),
    "subagent.jsonl": (16, None, None),
}


@requires_data
@pytest.mark.parametrize("pattern", CLAUDE_CODE_TABLE)
def test_claude_code_counts_match_sources_table(pattern: str) -> None:
    calls, compaction, summary_chars = CLAUDE_CODE_TABLE[pattern]
    relative = find(f"claude-code/{pattern}")
    transcript = load(relative)
    assert len(tool_calls(transcript.messages)) == calls
    # one ModelResponse per API response, i.e. per distinct message.id in the file
    lines = [json.loads(line) for line in (DATA / relative).read_text().splitlines()]
    message_ids = {d["message"]["id"] for d in lines if d.get("type") == "assistant"}
    assert len(responses(transcript.messages)) == len(message_ids)
    if compaction is None:
        assert transcript.recorded_compactions == []
        return
    [record] = transcript.recorded_compactions
    assert (record["trigger"], record["pre_tokens"]) == compaction
    assert record["summary_chars"] == summary_chars
    summary_request = transcript.messages[record["message_index"]]
    assert isinstance(summary_request, ModelRequest)
    [summary] = [p for p in summary_request.parts if isinstance(p, UserPromptPart)]
    assert summary.content.startswith("This session is being continued from a previous conversation")
    assert len(summary.content) == summary_chars


@requires_data
def test_claude_code_lines_sharing_message_id_become_one_response() -> None:
    transcript = load(find("claude-code/258c7280-*.jsonl"))
    by_id = {
        r.provider_response_id: (i, r)
        for i, r in enumerate(transcript.messages)
        if isinstance(r, ModelResponse)
    }
    # msg_01GGLG…: thinking, text and 8 Read calls on 10 lines, with tool results written in between
    index, response = by_id["msg_01GGLGCJ9sN12iKQZvVorFAw"]
    assert [type(p) for p in response.parts[:2]] == [ThinkingPart, TextPart]
    assert len(tool_calls([response])) == 8
    answer = transcript.messages[index + 1]
    assert [p.tool_call_id for p in answer.parts] == [c.tool_call_id for c in tool_calls([response])]
    # usage: every line repeats a streaming snapshot; the final one (largest output_tokens) wins
    first = by_id["msg_01EEiRWuVvwAmenNJXZcerPY"][1]
    assert first.usage.input_tokens == 3 + 8037 + 17_842
    assert (first.usage.cache_read_tokens, first.usage.cache_write_tokens) == (17_842, 8037)
    assert first.usage.cache_write_1h_tokens == 8037
    assert first.usage.output_tokens == 441
    assert first.timestamp.isoformat() == "2026-02-11T20:36:47.925000+00:00"  # its first line
    assert first.model_name == "claude-opus-4-6"


@requires_data
def test_claude_code_queued_messages_appear_where_the_model_saw_them() -> None:
    transcript = load(find("claude-code/258c7280-*.jsonl"))
    messages = transcript.messages

    def request_answering(call_id: str) -> ModelRequest:
        [request] = [
            m
            for m in messages
            if isinstance(m, ModelRequest)
            and any(isinstance(p, ToolReturnPart) and p.tool_call_id == call_id for p in m.parts)
        ]
        return request

    def prompts(request: ModelRequest) -> list[str]:
        return [
            p.content for p in request.parts if isinstance(p, UserPromptPart) and isinstance(p.content, str)
        ]

    # typed while the agent worked: only `queue-operation` enqueue/remove lines record them
    assert "check again" in prompts(request_answering("toolu_01MP7XLcGvsgTN7E5MLGdM5X"))
    assert "new beads for the epic were added. tackle them" in prompts(
        request_answering("toolu_01AJu7BCJWQYvVfkHiyyueFG")
    )
    # queued task notifications are delivered later as ordinary user lines: imported once, not twice
    all_prompts = [text for m in messages if isinstance(m, ModelRequest) for text in prompts(m)]
    assert sum("<task-id>b0be39e</task-id>" in text for text in all_prompts) == 1
    assert sum("<task-id>bd0afab</task-id>" in text for text in all_prompts) == 1
    # a queued slash command the model reacted to ("Let me check the MCP servers status")
    heavy = load(find("claude-code/tool_heavy.jsonl"))
    [after] = [
        m
        for m in heavy.messages
        if isinstance(m, ModelRequest)
        and any(
            isinstance(p, ToolReturnPart) and p.tool_call_id == "toolu_018GZVh9ymkrdx1TnR8reg5Y"
            for p in m.parts
        )
    ]
    assert "/mcp" in prompts(after)


@requires_data
def test_claude_code_meta_lines_are_kept_because_the_model_sees_them() -> None:
    transcript = load(find("claude-code/258c7280-*/subagents/agent-acompact-*.jsonl"))
    [request, response] = transcript.messages
    texts = [p.content for p in request.parts if isinstance(p, UserPromptPart)]
    assert sum(t.startswith("<system-reminder>") for t in texts) == 2  # isMeta hook context
    assert texts[-1].startswith("Your task is to create a detailed summary")
    assert isinstance(response, ModelResponse) and "<analysis>" in response.text
    # the compaction call's only line is a streaming snapshot: 6 output tokens for a 14 KB answer
    assert response.usage.output_tokens == 6 and len(response.text) > 13_000
    assert response.metadata == {"output_tokens_is_lower_bound": True}


@requires_data
def test_claude_code_streaming_usage_snapshots_are_flagged() -> None:
    transcript = load(find("claude-code/258c7280-*.jsonl"))
    flagged = [r for r in responses(transcript.messages) if r.metadata]
    assert len(flagged) == 23
    said = [w for w in transcript.warnings if w.startswith("23 responses have only part of their output counted")]
    assert said and "costs are a lower bound" in said[0]
    assert not any("output_tokens" in w or "metadata" in w for w in transcript.warnings)  # no internal names


# --- Codex -----------------------------------------------------------------------------------------------


def _distinct_usage_events(path: Path) -> int:
    last, count = None, 0
    for line in path.read_text().splitlines():
        record = json.loads(line)
        info = record["payload"].get("info") if record["type"] == "event_msg" else None
        if record["payload"].get("type") == "token_count" and info:
            total = json.dumps(info["total_token_usage"], sort_keys=True)
            if total != last:
                last, count = total, count + 1
    return count


@requires_data
@pytest.mark.parametrize(
    "path", [p for p in REAL_FILES if p.relative_to(DATA).parts[0] == "codex"], ids=lambda p: p.name
)
def test_codex_every_api_call_is_one_response_with_its_usage(path: Path) -> None:
    transcript = load(str(path.relative_to(DATA)))
    assert len(responses(transcript.messages)) == _distinct_usage_events(path)
    assert isinstance(transcript.messages[0].parts[0], SystemPromptPart)  # base_instructions
    assert any("redaction markers" in w for w in transcript.warnings)


@requires_data
def test_codex_long_session_counts_and_compaction() -> None:
    transcript = load(find("codex/raw/sessions/*12-54-34-*.jsonl"))
    assert len(tool_calls(transcript.messages)) == 365  # SOURCES.md
    [record] = transcript.recorded_compactions
    assert record["kind"] == "compacted" and record["replacement_items"] == 40
    assert isinstance(transcript.messages[record["message_index"]], ModelResponse)
    assert transcript.messages[record["message_index"]].timestamp.isoformat() > record["timestamp"][:19]
    first = responses(transcript.messages)[0]
    assert first.model_name == "gpt-5.3-codex" and first.usage.cache_read_tokens <= first.usage.input_tokens


@requires_data
def test_codex_developer_message_between_call_and_output_moves_after_the_output() -> None:
    transcript = load(find("codex/raw/sessions/*12-47-42-*.jsonl"))
    [request] = [
        m
        for m in transcript.messages
        if isinstance(m, ModelRequest)
        and any(getattr(p, "tool_call_id", None) == "call_ySQUR7bFMvErO8HXpdBY207E" for p in m.parts)
    ]
    assert [type(p) for p in request.parts] == [ToolReturnPart, SystemPromptPart]
    # the call left open when the session was killed and resumed: Codex answered it "aborted" when it
    # resumed, before the context it sent again
    [aborted] = [p for m in transcript.messages if isinstance(m, ModelRequest) for p in m.parts
                 if getattr(p, "tool_call_id", None) == "call_BpTazJ89W9PntRqGPwDNfwEY"]
    assert isinstance(aborted, ToolReturnPart) and aborted.content == "aborted"
    assert not any("call_BpTazJ89W9PntRqGPwDNfwEY" in w for w in transcript.warnings)


# --- mini-swe-agent and SWE-agent --------------------------------------------------------------------------


@requires_data
@pytest.mark.parametrize("name", ["11797", "13964", "15213"])
def test_mini_swe_agent_deepseek_usage_and_counts(name: str) -> None:
    relative = find(f"*/django__django-{name}.traj.json")
    raw = json.loads((DATA / relative).read_text())["messages"]
    transcript = load(relative)
    assistant = [m for m in raw if m["role"] == "assistant"]
    assert len(responses(transcript.messages)) == len(assistant)
    # the final submit call never gets a tool reply: dropped, so calls == tool replies
    assert len(tool_calls(transcript.messages)) == sum(m["role"] == "tool" for m in raw)
    first_usage = assistant[0]["extra"]["response"]["usage"]
    first = responses(transcript.messages)[0]
    assert first.usage.input_tokens == first_usage["prompt_tokens"]
    assert first.usage.cache_read_tokens == first_usage["prompt_cache_hit_tokens"]
    assert first.provider_name == "deepseek" and first.model_name == "deepseek-chat"
    assert isinstance(transcript.messages[0].parts[0], SystemPromptPart)


@requires_data
def test_swe_agent_trajectories_import_as_plain_chat() -> None:
    function_calling = load(find("complexity-trap/swe-agent-trajectories/6e44b9__*.traj"))
    assert len(tool_calls(function_calling.messages)) == 4  # answered via `tool_call_ids` lists
    old_style = load(find("complexity-trap/swe-agent-trajectories/pydicom__*.traj"))
    assert tool_calls(old_style.messages) == [] and len(responses(old_style.messages)) == 12
    demo = old_style.messages[0].parts[1]
    assert isinstance(demo, UserPromptPart) and "DEMONSTRATION" in str(demo.content)
