"""Gemini CLI's saved chats, written here in the shapes its chat recording service writes them: the
one-document session-*.json of releases up to April 2026, and the JSON lines since."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import ModelRequest, TextPart, ThinkingPart, UserPromptPart

from compact_agent.replay import TranscriptError, detect_format, load_transcript
from compact_agent.replay.report import nothing_found
from compact_agent.replay.retention import typed_texts
from compact_agent.replay.simulate import recorded_points

from ._helpers import assert_repair_is_noop, assert_valid_conversation, responses, results, tool_calls

META = {"sessionId": "5d1a2b3c-0000-4000-8000-000000000000", "projectHash": "ab" * 32,
        "startTime": "2026-01-10T09:00:00.000Z", "lastUpdated": "2026-01-10T09:05:00.000Z"}
OUTPUT = "def f():\n    return 1\n" * 200


def call(call_id: str, name: str, args: dict[str, Any], output: str, stamp: str, *, status: str = "success"
         ) -> dict[str, Any]:
    key = "error" if status == "error" else "output"
    return {"id": call_id, "name": name, "args": args, "status": status, "timestamp": stamp,
            "result": [{"functionResponse": {"id": call_id, "name": name, "response": {key: output}}}],
            "displayName": name, "description": "", "resultDisplay": output[:20]}


def session_messages() -> list[dict[str, Any]]:
    return [
        {"id": "m0", "timestamp": "2026-01-10T09:00:00.000Z", "type": "user",
         "content": [{"text": "<session_context>\nThis is the Gemini CLI.\n</session_context>"}]},
        {"id": "m1", "timestamp": "2026-01-10T09:00:01.000Z", "type": "user",
         "content": [{"text": "explain @a.py"}, {"text": "\n--- Content from referenced files ---"},
                     {"text": "\nContent from @a.py:\n"}, {"text": OUTPUT}, {"text": "\n--- End of content ---"}],
         "displayContent": [{"text": "explain @a.py"}]},
        {"id": "m2", "timestamp": "2026-01-10T09:00:05.000Z", "type": "gemini", "content": "Let me run it.",
         "model": "gemini-2.5-pro",
         "thoughts": [{"subject": "Plan", "description": "run the tests", "timestamp": "2026-01-10T09:00:04.000Z"}],
         "tokens": {"input": 5_000, "output": 40, "cached": 3_000, "thoughts": 60, "tool": 0, "total": 5_100},
         "toolCalls": [call("c1", "run_shell_command", {"command": "pytest"}, "1 failed", "2026-01-10T09:00:09.000Z"),
                       call("c2", "read_file", {"absolute_path": "/w/b.py"}, "no such file",
                            "2026-01-10T09:00:09.001Z", status="error")]},
        {"id": "m3", "timestamp": "2026-01-10T09:00:10.000Z", "type": "info", "content": "Switched to fallback model"},
        {"id": "m4", "timestamp": "2026-01-10T09:00:12.000Z", "type": "gemini", "content": "f returns 1.",
         "model": "gemini-2.5-pro", "thoughts": [],
         "tokens": {"input": 5_900, "output": 12, "cached": 4_800, "thoughts": 0, "tool": 0, "total": 5_912}},
        {"id": "m5", "timestamp": "2026-01-10T09:01:00.000Z", "type": "user", "content": [{"text": "/stats"}]},
        {"id": "m6", "timestamp": "2026-01-10T09:01:10.000Z", "type": "user", "content": [{"text": "thanks, now b.py"}]},
        {"id": "m7", "timestamp": "2026-01-10T09:01:12.000Z", "type": "gemini", "content": "b.py does not exist.",
         "model": "gemini-2.5-pro", "tokens": None},
    ]


def test_a_saved_session_document_replays_its_calls_results_and_usage(tmp_path: Path) -> None:
    path = tmp_path / "session-2026-01-10T09-00-5d1a2b3c.json"
    path.write_text(json.dumps({**META, "messages": session_messages()}, indent=2))
    assert detect_format(path) == "gemini-cli"
    transcript = load_transcript(path)
    assert_valid_conversation(transcript.messages)
    assert_repair_is_noop(transcript.messages)
    assert [c.tool_call_id for c in tool_calls(transcript.messages)] == ["c1", "c2"]
    assert [(r.content, r.outcome) for r in results(transcript.messages)] == [("1 failed", "success"),
                                                                              ("no such file", "failed")]
    first, second, third = responses(transcript.messages)
    assert not any(isinstance(p, ThinkingPart) for m in responses(transcript.messages) for p in m.parts)
    assert [p.content for p in first.parts if isinstance(p, TextPart)] == ["Let me run it."]
    assert (first.usage.input_tokens, first.usage.cache_read_tokens, first.usage.output_tokens) == (5_000, 3_000, 100)
    assert first.model_name == "gemini-2.5-pro"
    assert second.usage.input_tokens == 5_900 and third.usage.unmeasured_requests == 1
    assert typed_texts(transcript.messages, transcript.harness_texts) == ["explain @a.py", "thanks, now b.py"]
    sent = [p.content for m in transcript.messages if isinstance(m, ModelRequest) for p in m.parts
            if isinstance(p, UserPromptPart)]
    assert OUTPUT in sent and "/stats" not in sent and "Switched to fallback model" not in sent
    assert transcript.warnings == ["left out 1 command the CLI handled itself (a line starting with / or ?): "
                                   "never sent to the model"]


def test_tool_calls_recorded_inside_the_response_before_are_their_own_responses(tmp_path: Path) -> None:
    """Before March 2026 a response of tool calls alone was added to the record before it, its usage
    lost: the calls finished in two batches, stamped seconds apart."""
    merged = {"id": "g1", "timestamp": "2026-01-10T09:00:05.000Z", "type": "gemini", "content": "Looking.",
              "tokens": {"input": 1_000, "output": 10, "cached": 0},
              "toolCalls": [call("a", "read_file", {"absolute_path": "/w/a.py"}, "A", "2026-01-10T09:00:06.000Z"),
                            call("b", "read_file", {"absolute_path": "/w/b.py"}, "B", "2026-01-10T09:00:09.500Z")]}
    path = tmp_path / "session-x.json"
    path.write_text(json.dumps({**META, "messages": [
        {"id": "u", "timestamp": "2026-01-10T09:00:00.000Z", "type": "user", "content": "read a.py and b.py"},
        merged, {"id": "g2", "timestamp": "2026-01-10T09:00:12.000Z", "type": "gemini", "content": "Done.",
                 "tokens": {"input": 1_200, "output": 5, "cached": 900}}]}))
    transcript = load_transcript(path)
    assert_valid_conversation(transcript.messages)
    calls = [[p.tool_call_id for p in r.parts if p.part_kind == "tool-call"] for r in responses(transcript.messages)]
    assert calls == [["a"], ["b"], []]
    assert [r.usage.input_tokens for r in responses(transcript.messages)] == [1_000, 0, 1_200]
    assert transcript.warnings == ["1 response made only of tool calls was recorded inside the response before "
                                   "(releases before March 2026): replayed as a response of its own, without usage"]


def test_json_lines_are_read_as_gemini_cli_reads_them_back(tmp_path: Path) -> None:
    """Each change appends the whole message again (same id, same place); a rewind drops that message
    and all after it; newer releases also record the results as a user message of function responses."""
    calls = [call("c1", "glob", {"pattern": "*.py"}, "a.py", "2026-04-20T10:00:03.000Z")]
    lines: list[dict[str, Any]] = [
        {**META, "kind": "main"},
        {"id": "u1", "timestamp": "2026-04-20T10:00:00.000Z", "type": "user", "content": [{"text": "list files"}]},
        {"id": "g1", "timestamp": "2026-04-20T10:00:02.000Z", "type": "gemini", "content": "", "thoughts": [],
         "tokens": {"input": 800, "output": 9, "cached": 0}, "model": "gemini-3-flash"},
        {"$set": {"lastUpdated": "2026-04-20T10:00:02.000Z"}},
        {"id": "g1", "timestamp": "2026-04-20T10:00:02.000Z", "type": "gemini", "content": "", "thoughts": [],
         "tokens": {"input": 800, "output": 9, "cached": 0}, "model": "gemini-3-flash", "toolCalls": calls},
        {"id": "r1", "timestamp": "2026-04-20T10:00:03.000Z", "type": "user",
         "content": [{"functionResponse": {"id": "c1", "name": "glob", "response": {"output": "a.py"}}}]},
        {"id": "g2", "timestamp": "2026-04-20T10:00:04.000Z", "type": "gemini", "content": "One file: a.py.",
         "tokens": {"input": 850, "output": 6, "cached": 700}},
        {"id": "u2", "timestamp": "2026-04-20T10:01:00.000Z", "type": "user", "content": [{"text": "delete it"}]},
        {"id": "g3", "timestamp": "2026-04-20T10:01:02.000Z", "type": "gemini", "content": "Deleting."},
        {"$rewindTo": "u2"},
        {"id": "u3", "timestamp": "2026-04-20T10:02:00.000Z", "type": "user", "content": [{"text": "keep it"}]},
        {"id": "g4", "timestamp": "2026-04-20T10:02:02.000Z", "type": "gemini", "content": "Kept."},
    ]
    path = tmp_path / "session-2026-04-20T10-00-5d1a2b3c.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert detect_format(path) == "gemini-cli"
    transcript = load_transcript(path)
    assert_valid_conversation(transcript.messages)
    assert [r.content for r in results(transcript.messages)] == ["a.py"]
    assert typed_texts(transcript.messages, transcript.harness_texts) == ["list files", "keep it"]
    assert [r.usage.input_tokens for r in responses(transcript.messages)][:2] == [800, 850]
    assert transcript.warnings == ["left out 2 messages the conversation was rewound past: the model never saw "
                                   "them again"]
    assert transcript.skipped == 0


def test_a_history_the_cli_rewrote_is_said_and_not_used_to_fit(tmp_path: Path) -> None:
    kept = [{"id": "s", "timestamp": "2026-04-20T10:05:00.000Z", "type": "user",
             "content": [{"text": "<state_snapshot>the work so far</state_snapshot>"}]},
            {"id": "k", "timestamp": "2026-04-20T10:05:01.000Z", "type": "gemini", "content": "Got it.",
             "tokens": {"input": 300, "output": 3, "cached": 0}}]
    lines = [META, {"id": "u1", "timestamp": "2026-04-20T10:00:00.000Z", "type": "user", "content": "go"},
             {"$set": {"messages": kept}}]
    path = tmp_path / "session-r.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    transcript = load_transcript(path)
    assert [r.usage.input_tokens for r in responses(transcript.messages)] == [300]
    assert transcript.warnings[0].startswith("Gemini CLI rewrote this session's history")
    assert recorded_points(transcript, transcript.messages) == []


def test_damaged_messages_are_counted_not_raised(tmp_path: Path) -> None:
    path = tmp_path / "session-d.json"
    path.write_text(json.dumps({**META, "messages": [
        {"id": "u", "timestamp": "x", "type": "user", "content": "hi"},
        {"id": "g", "type": "gemini", "content": "", "toolCalls": [{"id": "c", "args": {}, "result": "r"}]},
        {"id": "q", "type": "mystery"},
        {"id": "g2", "type": "gemini", "content": "hello"}]}))
    transcript = load_transcript(path)
    assert transcript.skipped == 2 and any("unexpected shape" in w for w in transcript.warnings)
    assert [p.content for p in responses(transcript.messages)[0].parts] == ["hello"]


def test_a_custom_commands_prompt_is_the_harnesss_and_not_typed(tmp_path: Path) -> None:
    path = tmp_path / "session-c.json"
    path.write_text(json.dumps({**META, "messages": [
        {"id": "u", "timestamp": "2026-01-10T09:00:00.000Z", "type": "user",
         "content": [{"text": "Review the staged changes for bugs and style."}], "displayContent": "/review"},
        {"id": "g", "timestamp": "2026-01-10T09:00:03.000Z", "type": "gemini", "content": "Looks fine."}]}))
    transcript = load_transcript(path)
    assert typed_texts(transcript.messages, transcript.harness_texts) == []
    assert len(responses(transcript.messages)) == 1


def test_the_formats_named_when_nothing_is_read_include_the_new_ones(tmp_path: Path) -> None:
    for line in (nothing_found([]), nothing_found([f"skipped {tmp_path}: not a transcript"])):
        assert "Cline or Roo Code tasks, Cline SDK sessions, Gemini CLI chats" in line
    (tmp_path / "x.json").write_text('{"a": 1}')
    with pytest.raises(TranscriptError, match="a Cline or Roo Code task, a Cline SDK session or a Gemini CLI chat"):
        load_transcript(tmp_path / "x.json")


def test_results_recorded_as_the_cli_later_masked_them_are_said(tmp_path: Path) -> None:
    """From February 2026 Gemini CLI wrote an old result, once masked, into the record of the call that
    had sent it whole: the sizes recorded before were of the whole output."""
    masked = "<tool_output_masked>\nline 1\n\nOutput too large. Full output available at: /t/out.txt\n</tool_output_masked>"
    path = tmp_path / "session-m.json"
    path.write_text(json.dumps({**META, "messages": [
        {"id": "u", "timestamp": "2026-02-10T09:00:00.000Z", "type": "user", "content": "build it"},
        {"id": "g", "timestamp": "2026-02-10T09:00:02.000Z", "type": "gemini", "content": "Building.",
         "tokens": {"input": 900, "output": 4, "cached": 0},
         "toolCalls": [call("c", "run_shell_command", {"command": "make"}, masked, "2026-02-10T09:00:30.000Z")]},
        {"id": "g2", "timestamp": "2026-02-10T09:00:40.000Z", "type": "gemini", "content": "Built.",
         "tokens": {"input": 60_000, "output": 3, "cached": 0}}]}))
    transcript = load_transcript(path)
    assert [r.content for r in results(transcript.messages)] == [masked]
    assert transcript.warnings == ["1 tool result was recorded as Gemini CLI later masked it (<tool_output_masked>), "
                                   "not as first sent: replayed masked, and the recorded sizes are not used to fit ours"]
    assert recorded_points(transcript, transcript.messages) == []


def test_the_prompt_of_its_server_side_tools_counts_in_the_requests_input(tmp_path: Path) -> None:
    """`tokens.tool` is `toolUsePromptTokenCount`: what a server-side tool (Google Search) added to the
    prompt, billed as input beside `promptTokenCount`."""
    path = tmp_path / "session-t.json"
    path.write_text(json.dumps({**META, "messages": [
        {"id": "u", "timestamp": "2026-01-10T09:00:00.000Z", "type": "user", "content": "what's new in 3.14?"},
        {"id": "g", "timestamp": "2026-01-10T09:00:03.000Z", "type": "gemini", "content": "Free threading.",
         "tokens": {"input": 1_000, "output": 20, "cached": 400, "thoughts": 0, "tool": 2_500, "total": 3_520}}]}))
    [response] = responses(load_transcript(path).messages)
    assert (response.usage.input_tokens, response.usage.cache_read_tokens) == (3_500, 400)
