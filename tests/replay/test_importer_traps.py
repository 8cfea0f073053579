"""The importers on small synthetic files: each trap found in the real data, isolated, plus damaged input."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.replay import TranscriptError, detect_format, load_transcript
from compact_agent.replay._common import ConversationBuilder
from compact_agent.replay._redaction import RedactionStats, filler
from compact_agent.replay.retention import typed_texts

from ._helpers import assert_repair_is_noop, assert_valid_conversation, responses, tool_calls


def write_jsonl(path: Path, records: list[Any], *, tail: str = "") -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records) + tail)
    return path


def part_types(message: Any) -> list[type]:
    return [type(p) for p in message.parts]


# --- Claude Code -----------------------------------------------------------------------------------------


def cc_user(content: Any, ts: str, **extra: Any) -> dict[str, Any]:
    return {
        "type": "user",
        "uuid": f"u-{ts}",
        "timestamp": ts,
        "message": {"role": "user", "content": content},
        **extra,
    }


def cc_assistant(
    message_id: str, block: dict[str, Any], ts: str, output_tokens: int, *, final: bool = False
) -> dict[str, Any]:
    usage: dict[str, Any] = {
        "input_tokens": 2,
        "cache_read_input_tokens": 1000,
        "cache_creation_input_tokens": 50,
        "output_tokens": output_tokens,
    }
    if final:  # the line written after message_delta carries these keys
        usage |= {"server_tool_use": {"web_search_requests": 0}, "iterations": []}
    return {
        "type": "assistant",
        "uuid": f"a-{ts}",
        "timestamp": ts,
        "message": {
            "id": message_id,
            "model": "claude-test",
            "role": "assistant",
            "content": [block],
            "usage": usage,
        },
    }


def tool_result(call_id: str, content: Any, *, is_error: bool = False) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": content, "is_error": is_error}


def tool_use(call_id: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": "Bash", "input": {"command": f"echo {call_id}"}}


CLAUDE_SESSION = [
    {"type": "file-history-snapshot", "messageId": "x", "snapshot": {}},
    cc_user("fix the bug", "2026-01-01T10:00:00Z"),
    cc_assistant("msg_1", {"type": "text", "text": "\n\n"}, "2026-01-01T10:00:01Z", 1),
    cc_assistant("msg_1", {"type": "thinking", "thinking": "plan", "signature": "[REDACTED_SIGNATURE]"}, "2026-01-01T10:00:02Z", 5),
    cc_assistant("msg_1", tool_use("t1"), "2026-01-01T10:00:03Z", 9),
    {"type": "progress", "uuid": "p1", "data": {}},
    cc_user([tool_result("t1", "one")], "2026-01-01T10:00:04Z"),  # result written between lines of msg_1
    cc_assistant("msg_1", tool_use("t2"), "2026-01-01T10:00:05Z", 40),
    {"type": "queue-operation", "operation": "enqueue", "timestamp": "2026-01-01T10:00:05Z", "content": "<task-notification>done</task-notification>"},
    {"type": "queue-operation", "operation": "enqueue", "timestamp": "2026-01-01T10:00:06Z", "content": "also run lint"},
    {"type": "queue-operation", "operation": "remove", "timestamp": "2026-01-01T10:00:07Z"},
    cc_user([tool_result("t2", [{"type": "text", "text": "shot:"}, {"type": "image", "source": {"data": "AAAA" * 5000}}], is_error=True)], "2026-01-01T10:00:07Z"),
    cc_assistant("msg_2", {"type": "text", "text": "done"}, "2026-01-01T10:00:09Z", 3, final=True),
    cc_user("<task-notification>done</task-notification>", "2026-01-01T10:00:10Z"),
    cc_user("<system-reminder>hook context</system-reminder>", "2026-01-01T10:00:10Z", isMeta=True),
    {"type": "system", "subtype": "compact_boundary", "uuid": "s1", "timestamp": "2026-01-01T10:01:00Z", "compactMetadata": {"trigger": "manual", "preTokens": 1234}},
    cc_user("This session is being continued … summary", "2026-01-01T10:01:00Z", isCompactSummary=True),
    {"type": "queue-operation", "operation": "enqueue", "timestamp": "2026-01-01T10:01:01Z", "content": "never sent"},
    cc_assistant("msg_3", {"type": "text", "text": "continuing"}, "2026-01-01T10:01:02Z", 7),
]  # fmt: skip


def test_claude_code_synthetic_session_covers_every_trap(tmp_path: Path) -> None:
    transcript = load_transcript(write_jsonl(tmp_path / "session.jsonl", CLAUDE_SESSION))
    messages = transcript.messages
    assert transcript.format == "claude-code" and transcript.skipped == 0
    assert [type(m) for m in messages] == [
        ModelRequest,
        ModelResponse,
        ModelRequest,
        ModelResponse,
        ModelRequest,
        ModelResponse,
    ]
    # four lines of msg_1 -> one response; blank "\n\n" dropped; redacted signature not kept
    first = messages[1]
    assert part_types(first) == [ThinkingPart, ToolCallPart, ToolCallPart]
    assert first.parts[0].signature is None
    assert first.usage.output_tokens == 40 and first.usage.input_tokens == 1052
    assert first.timestamp.isoformat() == "2026-01-01T10:00:01+00:00"
    # no line of msg_1 carries the final usage: its output count is only a streamed lower bound
    assert first.metadata == {"output_tokens_is_lower_bound": True}
    assert messages[3].metadata is None
    # results of both calls, then the queued message the model saw with them (not the notification)
    answer = messages[2]
    assert part_types(answer) == [ToolReturnPart, ToolReturnPart, UserPromptPart]
    assert answer.parts[1].outcome == "failed"
    assert answer.parts[1].content == "shot:\n[image]"  # base64 never kept
    assert answer.parts[2].content == "also run lint"
    # notification delivered as a normal line (once), meta line kept, compaction anchored at the summary
    texts = [p.content for p in messages[4].parts]
    assert texts == [
        "<task-notification>done</task-notification>",
        "<system-reminder>hook context</system-reminder>",
        "This session is being continued … summary",
    ]
    [compaction] = transcript.recorded_compactions
    assert (
        compaction["message_index"] == 4
        and compaction["trigger"] == "manual"
        and compaction["pre_tokens"] == 1234
    )
    assert any("never sent to the model" in w for w in transcript.warnings)
    assert_valid_conversation(messages)
    assert_repair_is_noop(messages)


def test_claude_code_subagent_lines_in_the_session_file_are_not_the_main_conversation(tmp_path: Path) -> None:
    """Up to 2.0 a Task subagent's conversation went into the session file, marked isSidechain: the main
    model saw only its final answer (the tool result). The subagent's own file is all such lines."""
    task = {"type": "tool_use", "id": "t1", "name": "Task", "input": {"prompt": "find the config"}}
    side = {"isSidechain": True}
    records = [
        cc_user("where is the config?", "2026-01-01T10:00:00Z"),
        cc_assistant("msg_1", task, "2026-01-01T10:00:01Z", 5, final=True),
        cc_user("find the config", "2026-01-01T10:00:02Z", **side),
        cc_assistant("msg_s1", tool_use("s1"), "2026-01-01T10:00:03Z", 5, final=True) | side,
        cc_user([tool_result("s1", "config/app.toml")], "2026-01-01T10:00:04Z", **side),
        cc_assistant("msg_s2", {"type": "text", "text": "It is config/app.toml"}, "2026-01-01T10:00:05Z", 5,
                     final=True) | side,
        cc_user([tool_result("t1", "It is config/app.toml")], "2026-01-01T10:00:06Z"),
        cc_assistant("msg_2", {"type": "text", "text": "config/app.toml"}, "2026-01-01T10:00:07Z", 3, final=True),
    ]
    transcript = load_transcript(write_jsonl(tmp_path / "session.jsonl", records))
    assert [type(m) for m in transcript.messages] == [ModelRequest, ModelResponse, ModelRequest, ModelResponse]
    assert [p.tool_call_id for p in transcript.messages[1].parts] == ["t1"]
    assert [type(p) for p in transcript.messages[2].parts] == [ToolReturnPart]
    assert any(w.startswith("left out 4 lines of subagents' own conversations") for w in transcript.warnings)
    assert_valid_conversation(transcript.messages)
    own = load_transcript(write_jsonl(tmp_path / "agent-s.jsonl", records[2:6]))  # the subagent's own file
    assert [type(m) for m in own.messages] == [ModelRequest, ModelResponse, ModelRequest, ModelResponse]
    assert not any("subagents' own" in w for w in own.warnings)


def test_claude_code_file_opening_with_many_summary_lines_is_claude_code(tmp_path: Path) -> None:
    """Older versions opened a resumed session's file with a summary line per earlier conversation
    ({type: summary, summary, leafUuid}): sixty of them before the first message."""
    summaries = [{"type": "summary", "summary": f"Earlier work {i}", "leafUuid": f"leaf-{i}"} for i in range(60)]
    records = [*summaries, cc_user("go on", "2026-01-01T10:00:00Z"),
               cc_assistant("msg_1", {"type": "text", "text": "going"}, "2026-01-01T10:00:01Z", 3, final=True)]
    transcript = load_transcript(write_jsonl(tmp_path / "session.jsonl", records))
    assert transcript.format == "claude-code" and transcript.skipped == 0
    assert [type(m) for m in transcript.messages] == [ModelRequest, ModelResponse]


def test_claude_code_lines_a_rewind_went_past_are_left_out(tmp_path: Path) -> None:
    """A rewind re-parents the next typed message to an earlier line; the lines after that one stay
    in the file. Parallel tool results naming an earlier call line, and a prompt following a
    progress line, are the conversation going on, not a rewind."""
    def chained(record: dict[str, Any], parent: str | None) -> dict[str, Any]:
        return record | {"parentUuid": parent}

    first = cc_user("fix the bug", "2026-01-01T10:00:00Z")
    call_1 = cc_assistant("msg_1", tool_use("t1"), "2026-01-01T10:00:01Z", 5)
    call_2 = cc_assistant("msg_1", tool_use("t2"), "2026-01-01T10:00:02Z", 9, final=True)
    done = cc_assistant("msg_2", {"type": "text", "text": "fixed"}, "2026-01-01T10:00:05Z", 3, final=True)
    lint = cc_user("also run lint", "2026-01-01T10:00:06Z")
    linted = cc_assistant("msg_3", {"type": "text", "text": "linted"}, "2026-01-01T10:00:07Z", 3, final=True)
    progress = {"type": "progress", "uuid": "p1", "parentUuid": linted["uuid"], "data": {}}
    tests = cc_user("instead, add a test", "2026-01-01T10:00:09Z")
    records = [
        chained(first, None), chained(call_1, first["uuid"]), chained(call_2, call_1["uuid"]),
        chained(cc_user([tool_result("t1", "one")], "2026-01-01T10:00:03Z"), call_1["uuid"]),
        chained(cc_user([tool_result("t2", "two")], "2026-01-01T10:00:04Z"), call_2["uuid"]),
        chained(done, "u-2026-01-01T10:00:04Z"),
        chained(lint, done["uuid"]), chained(linted, lint["uuid"]), progress,
        chained(cc_user("and commit", "2026-01-01T10:00:08Z"), "p1"),  # after a progress line: goes on
        chained(tests, done["uuid"]),  # rewound to just after "fixed"
        chained(cc_assistant("msg_4", {"type": "text", "text": "added"}, "2026-01-01T10:00:10Z", 3, final=True),
                tests["uuid"]),
    ]  # fmt: skip
    transcript = load_transcript(write_jsonl(tmp_path / "session.jsonl", records))
    texts = [p.content for m in transcript.messages for p in m.parts if isinstance(p, (UserPromptPart, TextPart))]
    assert texts == ["fix the bug", "fixed", "instead, add a test", "added"]
    assert [p.tool_call_id for m in transcript.messages for p in m.parts if isinstance(p, ToolReturnPart)] == ["t1", "t2"]
    assert any(w.startswith("left out 3 lines the conversation was rewound past") for w in transcript.warnings)
    assert_valid_conversation(transcript.messages)


def test_claude_code_queued_command_attachments_are_messages_that_entered_the_turn(tmp_path: Path) -> None:
    """Newer versions record a message typed while the agent works as a queued_command attachment where
    it entered the turn: a person's prompt is typed, a notification or another agent's is not; one a
    queue removal already imported is not imported twice, and none is reported as never sent."""
    def queued(text: str, ts: str, **more: Any) -> dict[str, Any]:
        return {"type": "attachment", "uuid": f"q-{ts}", "timestamp": ts,
                "attachment": {"type": "queued_command", "prompt": text, **more}}

    def enqueue(text: str, ts: str) -> dict[str, Any]:
        return {"type": "queue-operation", "operation": "enqueue", "timestamp": ts, "content": text}

    records = [
        cc_user("fix the bug", "2026-01-01T10:00:00Z"),
        cc_assistant("msg_1", tool_use("t1"), "2026-01-01T10:00:01Z", 9, final=True),
        enqueue("then run lint", "2026-01-01T10:00:02Z"),
        enqueue("and push", "2026-01-01T10:00:02.5Z"),
        {"type": "queue-operation", "operation": "remove", "timestamp": "2026-01-01T10:00:03Z", "content": "and push"},
        cc_user([tool_result("t1", "one")], "2026-01-01T10:00:03Z"),
        queued("and push", "2026-01-01T10:00:03.5Z", commandMode="prompt", origin={"kind": "human"}),
        queued("then run lint", "2026-01-01T10:00:04Z", commandMode="prompt", origin={"kind": "human"}),
        queued("<task-notification>build done</task-notification>", "2026-01-01T10:00:04.5Z",
               commandMode="task-notification"),
        queued("note from the reviewer agent", "2026-01-01T10:00:05Z", commandMode="prompt", origin={"kind": "peer"}),
        {"type": "attachment", "uuid": "h1", "attachment": {"type": "hook_additional_context", "content": ["x"]}},
        cc_assistant("msg_2", {"type": "text", "text": "done"}, "2026-01-01T10:00:06Z", 3, final=True),
    ]  # fmt: skip
    transcript = load_transcript(write_jsonl(tmp_path / "session.jsonl", records))
    prompts = [p.content for m in transcript.messages for p in m.parts if isinstance(p, UserPromptPart)]
    assert prompts == ["fix the bug", "and push", "then run lint", "<task-notification>build done</task-notification>",
                       "note from the reviewer agent", "hook additional context:\nx"]
    assert typed_texts(transcript.messages, transcript.harness_texts) == ["fix the bug", "and push", "then run lint"]
    assert transcript.skipped == 0 and not any("never sent" in w for w in transcript.warnings)
    assert_valid_conversation(transcript.messages)


# --- Codex -----------------------------------------------------------------------------------------------


def cx(kind: str, payload: dict[str, Any], ts: str = "2026-02-01T09:00:00.000Z") -> dict[str, Any]:
    return {"timestamp": ts, "type": kind, "payload": payload}


def token_count(total: int, last_in: int, cached: int, out: int) -> dict[str, Any]:
    info = {
        "total_token_usage": {"total_tokens": total},
        "last_token_usage": {
            "input_tokens": last_in,
            "cached_input_tokens": cached,
            "output_tokens": out,
            "reasoning_output_tokens": 2,
        },
    }
    return cx("event_msg", {"type": "token_count", "info": info})


CODEX_SESSION = [
    cx("session_meta", {"id": "s", "base_instructions": {"text": "[REDACTED_TEXT len=300 sha=0123abcd]"}}),
    cx("turn_context", {"model": "gpt-test"}),
    cx("response_item", {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "perms"}]}),
    cx("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "do it"}, {"type": "input_image", "image_url": "[REDACTED_IMAGE_URL len=999999 sha=ffff0000]"}]}),
    cx("event_msg", {"type": "user_message", "message": "do it"}),  # UI duplicate: ignored
    cx("event_msg", {"type": "token_count", "info": None}),
    cx("response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text": "think"}], "encrypted_content": "zzz"}),
    cx("response_item", {"type": "function_call", "name": "[REDACTED_NAME len=12 sha=abcdef12]", "arguments": "[REDACTED_ARGUMENTS len=40 sha=12345678]", "call_id": "c1"}),
    token_count(1000, 900, 800, 100),
    cx("response_item", {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "approved"}]}),
    cx("response_item", {"type": "function_call_output", "call_id": "c1", "output": "ok"}),
    token_count(1000, 900, 800, 100),  # repeated snapshot after the output: not a new call
    cx("response_item", {"type": "custom_tool_call", "name": "apply_patch", "input": "*** patch", "call_id": "c2"}),
    token_count(2100, 1000, 900, 100),
    cx("response_item", {"type": "custom_tool_call_output", "call_id": "c2", "output": "patched"}),
    cx("compacted", {"message": "", "replacement_history": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "do it"}]}]}),
    cx("response_item", {"type": "web_search_call", "status": "completed"}),
    cx("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]}),
    token_count(2300, 150, 0, 50),
]  # fmt: skip


def test_codex_synthetic_session_covers_every_trap(tmp_path: Path) -> None:
    transcript = load_transcript(write_jsonl(tmp_path / "rollout.jsonl", CODEX_SESSION))
    messages = transcript.messages
    assert transcript.format == "codex" and transcript.skipped == 0
    assert [type(m) for m in messages] == [
        ModelRequest,
        ModelResponse,
        ModelRequest,
        ModelResponse,
        ModelRequest,
        ModelResponse,
    ]
    opening = messages[0]
    assert part_types(opening) == [SystemPromptPart, SystemPromptPart, UserPromptPart]
    assert len(opening.parts[0].content) == 300  # redacted instructions expanded to their recorded size
    assert opening.parts[2].content == "do it\n[image]"
    call = messages[1]
    assert part_types(call) == [ThinkingPart, ToolCallPart]
    assert call.parts[1].tool_name == "redacted_tool_abcdef12"
    assert len(call.parts[1].args) == 40 and isinstance(json.loads(call.parts[1].args), dict)
    assert (call.usage.input_tokens, call.usage.cache_read_tokens, call.usage.output_tokens) == (
        900,
        800,
        100,
    )
    assert call.model_name == "gpt-test"
    # the developer message recorded between call and output follows the output
    assert part_types(messages[2]) == [ToolReturnPart, SystemPromptPart]
    assert messages[2].parts[1].content == "approved"
    assert messages[3].usage.input_tokens == 1000 and messages[3].parts[0].args == {"input": "*** patch"}
    [compaction] = transcript.recorded_compactions
    assert compaction["message_index"] == 5 and compaction["replacement_items"] == 1
    assert messages[5].usage.input_tokens == 150
    assert any(w.startswith("left out 1 web search") for w in transcript.warnings)
    assert_valid_conversation(messages)
    assert_repair_is_noop(messages)


# --- OpenAI chat ------------------------------------------------------------------------------------------

CHAT = [
    {"role": "system", "content": "be brief"},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "look"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
        ],
    },
    {"role": "tool", "tool_call_id": "ghost", "content": "orphan result"},
    {
        "role": "assistant",
        "content": None,
        "reasoning_content": "hmm",
        "tool_calls": [
            {"id": "k1", "type": "function", "function": {"name": "bash", "arguments": '{"command": "ls"}'}}
        ],
        "usage": {"prompt_tokens": 120, "completion_tokens": 8, "prompt_cache_hit_tokens": 64},
        "model": "deepseek-reasoner",
    },
    {"role": "tool", "tool_call_id": "k1", "content": "a.py"},
    {
        "role": "assistant",
        "content": "bye",
        "tool_calls": [{"id": "k2", "function": {"name": "bash", "arguments": "{}"}}],
    },
    {"role": "narrator", "content": "unknown role"},
]


@pytest.mark.parametrize("wrap", [False, True], ids=["list", "messages-key"])
def test_openai_chat_detected_by_content_and_repaired(tmp_path: Path, wrap: bool) -> None:
    path = tmp_path / "history.txt"  # the extension says nothing
    path.write_text(json.dumps({"messages": CHAT} if wrap else CHAT))
    assert detect_format(path) == "openai-chat"
    transcript = load_transcript(path)
    messages = transcript.messages
    assert transcript.skipped == 1  # the unknown role
    assert part_types(messages[0]) == [SystemPromptPart, UserPromptPart]
    assert messages[0].parts[1].content == "look\n[image]"
    reply = messages[1]
    assert part_types(reply) == [ThinkingPart, ToolCallPart]
    assert (reply.usage.input_tokens, reply.usage.cache_read_tokens, reply.usage.output_tokens) == (
        120,
        64,
        8,
    )
    assert tool_calls(messages)[-1].tool_call_id == "k1"  # k2 never answered: dropped
    assert isinstance(messages[-1], ModelResponse) and isinstance(messages[-1].parts[0], TextPart)
    assert any("without a preceding open call" in w for w in transcript.warnings)
    assert any("never got a result" in w for w in transcript.warnings)
    assert_valid_conversation(messages)
    assert_repair_is_noop(messages)


# --- damaged and unknown input ----------------------------------------------------------------------------


def test_garbage_and_truncated_lines_are_counted_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "damaged.jsonl"
    good = [json.dumps(r) for r in CLAUDE_SESSION]
    cut = cc_assistant("msg_9", {"type": "text", "text": "cut"}, "2026-01-01T11:00:00Z", 1)
    truncated = json.dumps(cut)[:60]
    lines = [
        good[0],
        "not json at all",
        *good[1:5],
        "[1, 2, 3]",
        '{"type": "mystery", "uuid": "m"}',
        '{"type": "assistant", "uuid": "z", "message": "not a dict"}',
        *good[5:],
        truncated,
    ]
    path.write_bytes("\n".join(lines).encode() + b"\n\xff\xfe\x00binary\x00\n" + truncated.encode())
    transcript = load_transcript(path)
    # garbage, array, unknown type, wrong shape, 2 truncated lines, binary line
    assert transcript.skipped == 7
    said = [w for w in transcript.warnings if "unexpected shape" in w]  # one line, in words
    assert said == ["skipped 1 entry of an unexpected shape (the first: a line's message is text, not an object)"
                    ], transcript.warnings  # the field named
    assert transcript.format == "claude-code"
    assert len(tool_calls(transcript.messages)) == 2
    assert_valid_conversation(transcript.messages)
    assert_repair_is_noop(transcript.messages)


def test_codex_local_shell_and_tool_search_calls_keep_their_outputs(tmp_path: Path) -> None:
    """Rollouts of the Responses API's built-in shell record `local_shell_call` items (output under the
    call's id, or the item's id when it has no call id); newer ones `tool_search_call` pairs. Each is a
    call with its result, not a dropped call and an orphaned output."""
    records = [
        cx("session_meta", {"id": "s", "base_instructions": {"text": "be brief"}}),
        cx("turn_context", {"model": "codex-mini"}),
        cx("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "look"}]}),
        cx("response_item", {"type": "local_shell_call", "call_id": "s1", "status": "completed",
                             "action": {"type": "exec", "command": ["bash", "-lc", "cat src/app.py"],
                                        "working_directory": "/repo", "timeout_ms": 10000, "env": {"K": "v"}}}),
        token_count(100, 90, 0, 10),
        cx("response_item", {"type": "function_call_output", "call_id": "s1", "output": "print('hi')"}),
        cx("response_item", {"type": "local_shell_call", "id": "lsh_2", "status": "completed",
                             "action": {"type": "exec", "command": ["ls"]}}),
        token_count(200, 150, 90, 10),
        cx("response_item", {"type": "local_shell_call_output", "id": "lsh_2", "output": "src"}),
        cx("response_item", {"type": "tool_search_call", "call_id": "t1", "execution": "client",
                             "arguments": {"query": "deploy"}}),
        token_count(300, 250, 150, 10),
        cx("response_item", {"type": "tool_search_output", "call_id": "t1", "status": "completed",
                             "execution": "client", "tools": [{"name": "deploy_app"}]}),
        cx("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]}),
        token_count(400, 320, 250, 5),
    ]  # fmt: skip
    transcript = load_transcript(write_jsonl(tmp_path / "rollout.jsonl", records))
    assert transcript.skipped == 0 and not any("without a preceding" in w for w in transcript.warnings)
    calls = [p for m in transcript.messages if isinstance(m, ModelResponse) for p in m.parts if isinstance(p, ToolCallPart)]
    returns = {p.tool_call_id: p for m in transcript.messages if isinstance(m, ModelRequest)
               for p in m.parts if isinstance(p, ToolReturnPart)}
    assert [(c.tool_name, c.tool_call_id) for c in calls] == [("local_shell", "s1"), ("local_shell", "lsh_2"),
                                                              ("tool_search", "t1")]
    assert calls[0].args == {"command": ["bash", "-lc", "cat src/app.py"], "workdir": "/repo", "timeout_ms": 10000}
    assert calls[1].args == {"command": ["ls"]} and calls[2].args == {"query": "deploy"}
    assert (returns["s1"].content, returns["lsh_2"].content) == ("print('hi')", "src")
    assert returns["s1"].tool_name == "local_shell" and "deploy_app" in returns["t1"].content


def test_codex_first_releases_rollout_without_envelope_is_codex(tmp_path: Path) -> None:
    """Codex's first releases wrote a line of session metadata, then the response items bare, with
    record_type lines between (and no token counts): the same conversation as today's layout."""
    records = [
        {"id": "s", "timestamp": "2025-05-01T09:00:00Z", "instructions": "be brief", "git": {}},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "list the files"}]},
        {"record_type": "state"},
        {"type": "function_call", "name": "shell", "arguments": '{"command": ["ls"]}', "call_id": "c1"},
        {"type": "function_call_output", "call_id": "c1", "output": '{"output": "a.py", "metadata": {"exit_code": 0}}'},
        {"record_type": "state"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "a.py"}]},
    ]  # fmt: skip
    transcript = load_transcript(write_jsonl(tmp_path / "rollout-2025-05-01.jsonl", records))
    assert transcript.format == "codex" and transcript.skipped == 0
    assert [type(m) for m in transcript.messages] == [ModelRequest, ModelResponse, ModelRequest, ModelResponse]
    assert part_types(transcript.messages[0]) == [SystemPromptPart, UserPromptPart]
    assert transcript.messages[0].parts[0].content == "be brief"
    assert transcript.messages[1].parts[0].args == '{"command": ["ls"]}'
    assert transcript.messages[2].parts[0].content == '{"output": "a.py", "metadata": {"exit_code": 0}}'
    assert_valid_conversation(transcript.messages)


def test_codex_garbage_lines(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "rollout.jsonl", CODEX_SESSION, tail='{"timestamp": "2026-02-01", "type": "respo'
    )
    path.write_text("\x00\x01 garbage\n" + path.read_text())
    transcript = load_transcript(path)
    assert transcript.skipped == 2 and transcript.format == "codex"
    assert len(responses(transcript.messages)) == 3


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read transcript"),
        (b"", "empty file"),
        (b"\x89PNG\r\n\x1a\n\x00\x00binary", "unknown transcript format"),
        (b'{"foo": 1}', "unknown transcript format"),
        (b'{"type": "whatever"}\n{"type": "else"}\n', "unknown transcript format"),
    ],
    ids=["missing", "empty", "binary", "unknown-json", "unknown-jsonl"],
)
def test_unreadable_or_unknown_files_raise_one_line_error(
    tmp_path: Path, content: bytes | None, message: str
) -> None:
    path = tmp_path / "transcript.jsonl"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(TranscriptError, match=message) as raised:
        load_transcript(path)
    assert isinstance(raised.value, ValueError) and "\n" not in str(raised.value)


# --- redaction filler -------------------------------------------------------------------------------------


def test_filler_is_deterministic_exact_length_and_json_safe() -> None:
    assert filler(5000, "1eb53f31") == filler(5000, "1eb53f31") != filler(5000, "036b7e47")
    assert all(len(filler(n, "abc")) == n for n in (0, 1, 7, 70_000, 200_000))
    stats = RedactionStats()
    text = stats.expand("a [REDACTED_TEXT len=25 sha=0a1b2c3d] b")
    assert len(text) == len("a  b") + 25 and "REDACTED" not in text
    assert json.loads(stats.expand_json_args("[REDACTED_ARGUMENTS len=9 sha=00000001]")) == {
        "_": filler(1, "00000001")
    }
    assert stats.markers == 2 and stats.chars == 34


# --- property: whatever survives of a session, the result is valid ----------------------------------------

GARBAGE = [
    "",
    "{",
    "null",
    '{"type": "user", "uuid": "g"}',
    '{"type": "assistant", "uuid": "h", "message": {}}',
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), source=st.sampled_from(["claude", "codex"]))
def test_any_subset_or_reordering_still_yields_a_valid_conversation(
    tmp_path: Path, data: Any, source: str
) -> None:
    lines = [json.dumps(r) for r in (CLAUDE_SESSION if source == "claude" else CODEX_SESSION)]
    picked = data.draw(st.lists(st.sampled_from(lines + GARBAGE), min_size=1, max_size=30))
    picked.append(lines[1])  # one recognisable record, so the format is always detectable
    path = tmp_path / f"{source}.jsonl"
    path.write_text("\n".join(picked))
    transcript = load_transcript(path)
    if transcript.messages:
        assert_valid_conversation(transcript.messages)
        assert_repair_is_noop(transcript.messages)


def test_malformed_entries_are_counted_in_one_line_in_words() -> None:
    """analyze printed `skipped malformed entries, first: KeyError: 'message'`: a Python class name
    and no count. It is one line that counts them and says what the first lacked."""
    builder = ConversationBuilder(fallback_time=datetime(2026, 1, 1, tzinfo=UTC))
    builder.warnings.append("an earlier warning")
    builder.skip_malformed(KeyError("message"))
    builder.skip_malformed(TypeError("'int' object is not subscriptable"))
    builder.skip_malformed(ValueError("bad timestamp '2026-13-01'\nmore"))
    assert builder.skipped == 3
    assert builder.warnings == ["an earlier warning",
                                "skipped 3 entries of an unexpected shape (the first: it has no field 'message')"]
