"""Anthropic-block message lists: Cline's task history (api_conversation_history.json) and plain
lists saved from the Anthropic Messages API, written here in the shapes their sources write."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelRequest, TextPart, ThinkingPart, ToolReturnPart, UserPromptPart

from compact_agent.replay import detect_format, load_transcript
from compact_agent.replay._common import IMAGE_PLACEHOLDER
from compact_agent.replay.retention import typed_texts

from ._helpers import assert_repair_is_noop, assert_valid_conversation, responses, results, tool_calls

TASK = "<task>\nfix the failing test in a.py\n</task>"
ENV = "<environment_details>\n# VSCode Visible Files\na.py\n</environment_details>"
OUTPUT = "x = 1\n" * 600


def write(path: Path, entries: list[Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(entries))  # Cline writes JSON.stringify(history): one line
    return path


def native_task(tmp_path: Path) -> Path:
    """A task on native tool calls: a read that succeeds, one that fails, then an answer."""
    return write(tmp_path / "task" / "api_conversation_history.json", [
        {"role": "user", "content": [{"type": "text", "text": TASK}, {"type": "text", "text": ENV}],
         "ts": 1_700_000_000_000},
        {"role": "assistant", "id": "msg_1", "modelInfo": {"modelId": "claude-x", "providerId": "anthropic", "mode": "act"},
         "content": [{"type": "thinking", "thinking": "look at a.py", "signature": "sig1"},
                     {"type": "text", "text": "Reading."},
                     {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a.py"}},
                     {"type": "tool_use", "id": "toolu_2", "name": "read_file", "input": {"path": "b.py"}}],
         "ts": 1_700_000_001_000},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": OUTPUT},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": [{"type": "text", "text": "no such file"}],
             "is_error": True},
            {"type": "text", "text": ENV}], "ts": 1_700_000_002_000},
        {"role": "assistant", "content": [{"type": "text", "text": "Done."}], "ts": 1_700_000_003_000},
    ])


def test_cline_task_imports_its_calls_and_results(tmp_path: Path) -> None:
    path = native_task(tmp_path)
    assert detect_format(path) == "cline"
    transcript = load_transcript(path)
    assert_valid_conversation(transcript.messages)
    assert_repair_is_noop(transcript.messages)
    assert len(responses(transcript.messages)) == 2
    assert [c.tool_call_id for c in tool_calls(transcript.messages)] == ["toolu_1", "toolu_2"]
    returned = {r.tool_call_id: r for r in results(transcript.messages)}
    assert returned["toolu_1"].content == OUTPUT and returned["toolu_1"].outcome == "success"
    assert returned["toolu_2"].content == "no such file" and returned["toolu_2"].outcome == "failed"
    assert returned["toolu_1"].tool_name == "read_file"
    first = responses(transcript.messages)[0]
    assert isinstance(first.parts[0], ThinkingPart) and first.parts[0].content == "look at a.py"
    assert first.model_name == "claude-x" and first.provider_response_id == "msg_1"
    assert first.timestamp == datetime.fromtimestamp(1_700_000_001, tz=UTC)  # ts is in milliseconds
    assert not transcript.warnings and transcript.skipped == 0


def test_cline_typed_words_are_only_those_it_tags_as_the_persons(tmp_path: Path) -> None:
    """The person's words are the task, feedback, answers and new messages Cline wraps in its tags;
    environment details, tool results sent as text (the XML-tool releases) and resumption notes are
    the harness's."""
    feedback = "[attempt_completion] Result:\nThe user has provided feedback on the results.\n<feedback>\nalso b.py\n</feedback>"
    resumed = "New instructions for task continuation:\n<user_message>\nand c.py\n</user_message>"
    path = write(tmp_path / "api_conversation_history.json", [
        {"role": "user", "content": [{"type": "text", "text": TASK}, {"type": "text", "text": ENV}], "ts": 1},
        {"role": "assistant", "content": [{"type": "text", "text": "<read_file>\n<path>a.py</path>\n</read_file>"}]},
        {"role": "user", "content": [{"type": "text", "text": "[read_file for 'a.py'] Result:"},
                                     {"type": "text", "text": OUTPUT}, {"type": "text", "text": ENV}]},
        {"role": "assistant", "content": "<attempt_completion>\n<result>fixed</result>\n</attempt_completion>"},
        {"role": "user", "content": [{"type": "text", "text": feedback}, {"type": "text", "text": ENV}]},
        {"role": "assistant", "content": [{"type": "text", "text": "On it."}]},
        {"role": "user", "content": [{"type": "text", "text": "[TASK RESUMPTION] This task was interrupted 2 hours ago."},
                                     {"type": "text", "text": resumed}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Sure."}]},
    ])
    transcript = load_transcript(path)
    assert transcript.format == "cline"
    # The words inside the tags, not the tags: what the person typed.
    assert typed_texts(transcript.messages, transcript.harness_texts) == [
        "fix the failing test in a.py", "also b.py", "and c.py"]
    sent = "".join(p.content for m in transcript.messages if isinstance(m, ModelRequest)
                   for p in m.parts if isinstance(p, UserPromptPart) and isinstance(p.content, str))
    assert TASK in sent and feedback in sent and resumed in sent  # split where the person's words start, nothing lost
    assert not tool_calls(transcript.messages)  # calls written as XML were text to the model


def test_plain_anthropic_list_pairs_calls_with_results_and_keeps_its_usage(tmp_path: Path) -> None:
    path = write(tmp_path / "chat.json", [
        {"role": "user", "content": "what is in a.py?"},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "read it", "signature": "s"},
            {"type": "tool_use", "id": "t1", "name": "read", "input": {"path": "a.py"}}],
         "usage": {"input_tokens": 10, "cache_read_input_tokens": 900, "cache_creation_input_tokens": 90,
                   "output_tokens": 30}},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": OUTPUT},
                                     {"type": "image", "source": {"type": "base64", "data": "AAAA"}},
                                     {"type": "text", "text": "and this screenshot"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "It sets x."}]},
    ])
    assert detect_format(path) == "openai-chat"
    transcript = load_transcript(path)
    assert_valid_conversation(transcript.messages)
    assert [r.content for r in results(transcript.messages)] == [OUTPUT]
    first = responses(transcript.messages)[0]
    assert [type(p) for p in first.parts][-1].__name__ == "ToolCallPart"
    assert any(isinstance(p, ThinkingPart) and p.content == "read it" for p in first.parts)
    assert (first.usage.input_tokens, first.usage.cache_read_tokens, first.usage.cache_write_tokens,
            first.usage.output_tokens) == (1000, 900, 90, 30)
    request = transcript.messages[2]
    assert isinstance(request, ModelRequest) and isinstance(request.parts[0], ToolReturnPart)
    assert [p.content for p in request.parts[1:]] == [IMAGE_PLACEHOLDER, "and this screenshot"]
    assert typed_texts(transcript.messages, transcript.harness_texts)[0] == "what is in a.py?"


def test_damaged_cline_entries_are_counted_not_raised(tmp_path: Path) -> None:
    path = write(tmp_path / "api_conversation_history.json", [
        {"role": "user", "content": TASK},
        {"role": "assistant", "content": [{"type": "tool_use", "name": "read_file", "input": {}}]},  # no id
        {"role": "assistant", "content": [{"type": "text", "text": "Hello."}]},
        {"role": "system", "content": "?"},
    ])
    transcript = load_transcript(path)
    assert transcript.format == "cline"
    assert transcript.skipped == 2
    assert any("unexpected shape" in w for w in transcript.warnings)
    assert [p.content for p in responses(transcript.messages)[0].parts if isinstance(p, TextPart)] == ["Hello."]
