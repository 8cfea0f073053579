"""Codex rollouts of every release: the replay holds what Codex sent the model, no more, no less.

Each case is a small rollout laid out as Codex writes it: rollbacks that cut turns from the history
the model saw, items Codex records but never sends, and items of newer releases that it does send.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic_ai.messages import (
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.replay import load_transcript
from compact_agent.replay.importers import Transcript

from ._helpers import assert_valid_conversation
from .test_importer_traps import cx, token_count, write_jsonl


def user(text: str) -> dict[str, Any]:
    return cx("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]})


def developer(text: str) -> dict[str, Any]:
    return cx("response_item", {"type": "message", "role": "developer",
                                "content": [{"type": "input_text", "text": text}]})


def assistant(text: str) -> dict[str, Any]:
    return cx("response_item", {"type": "message", "role": "assistant",
                                "content": [{"type": "output_text", "text": text}]})


def call(call_id: str, command: str) -> list[dict[str, Any]]:
    return [cx("response_item", {"type": "function_call", "name": "shell_command", "call_id": call_id,
                                 "arguments": f'{{"command": "{command}"}}'}),
            cx("response_item", {"type": "function_call_output", "call_id": call_id, "output": f"ran {command}"})]


def rolled_back(n: int) -> dict[str, Any]:
    return cx("event_msg", {"type": "thread_rolled_back", "num_turns": n})


HEAD = [
    cx("session_meta", {"id": "s", "base_instructions": {"text": "You are Codex."}}),
    cx("turn_context", {"model": "gpt-5-codex"}),
    developer("<permissions instructions>sandbox: workspace-write</permissions instructions>"),
    user("<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>"),
]
FIRST = [user("fix the bug"), *call("c1", "pytest"), assistant("fixed"), token_count(100, 90, 0, 10)]
SECOND = [
    developer("<permissions instructions>sandbox: danger-full-access</permissions instructions>"),
    user("<environment_context>\n  <cwd>/repo/sub</cwd>\n</environment_context>"),
    user("now delete the tests"), *call("c2", "rm -r tests"), assistant("deleted"), token_count(250, 200, 90, 10),
]
THIRD = [user("write the docs instead"), assistant("written"), token_count(380, 330, 200, 10)]


def load(tmp_path: Path, records: list[dict[str, Any]]) -> Transcript:
    transcript = load_transcript(write_jsonl(tmp_path / "rollout-2026-03-01T10-00-00-s.jsonl", records))
    assert transcript.format == "codex"
    assert_valid_conversation(transcript.messages)
    return transcript


def said(transcript: Transcript) -> list[str]:
    """What the replay sends, in order: the text of every prompt part and reply, and the calls' commands."""
    out = []
    for message in transcript.messages:
        for part in message.parts:
            if isinstance(part, (SystemPromptPart, UserPromptPart, TextPart)):
                out.append(str(part.content))
            elif isinstance(part, ToolCallPart):
                out.append(f"call {part.tool_call_id}")
    return out


# --- rollbacks -------------------------------------------------------------------------------------------


def test_a_rolled_back_turn_is_not_replayed(tmp_path: Path) -> None:
    """A rollback of one turn: Codex cut the history at that turn's message, with the permission note and
    environment context it had put just above it, so the model never saw them again. They were replayed
    in every later request."""
    transcript = load(tmp_path, [*HEAD, *FIRST, *SECOND, rolled_back(1), *THIRD])
    assert said(transcript) == [
        "You are Codex.", "<permissions instructions>sandbox: workspace-write</permissions instructions>",
        "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>", "fix the bug", "call c1", "fixed",
        "write the docs instead", "written",
    ]
    assert "left out 6 items of 1 turn rolled back in Codex: the model never saw them again, so no strategy " \
           "replays them" in transcript.warnings
    # the token counts recorded in the rolled-back turn went with it: each reply left has its own
    assert [m.usage.input_tokens for m in transcript.messages if isinstance(m, ModelResponse)][1:] == [90, 330]
    assert not any("token count" in w for w in transcript.warnings)


def test_a_rollback_of_more_turns_than_there_are_keeps_what_came_before_the_first(tmp_path: Path) -> None:
    transcript = load(tmp_path, [*HEAD, *FIRST, *SECOND, rolled_back(5), *THIRD])
    assert said(transcript) == [
        "You are Codex.", "<permissions instructions>sandbox: workspace-write</permissions instructions>",
        "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>", "write the docs instead", "written",
    ]
    assert any(w.startswith("left out 10 items of 2 turns rolled back in Codex") for w in transcript.warnings)


def test_rollbacks_one_after_another_each_cut_what_is_left(tmp_path: Path) -> None:
    """Two rollbacks of one turn each drop the last two turns, not the last one twice."""
    transcript = load(tmp_path, [*HEAD, *FIRST, *SECOND, rolled_back(1), rolled_back(1), *THIRD])
    assert said(transcript)[3:] == ["write the docs instead", "written"]
    assert any(w.startswith("left out 10 items of 2 turns") for w in transcript.warnings)


def test_harness_context_in_the_users_role_starts_no_turn(tmp_path: Path) -> None:
    """A turn whose context Codex re-sent (environment context, AGENTS.md instructions) is still one
    turn: only the message the person typed starts it."""
    agents = user("# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\nrun make\n</INSTRUCTIONS>")
    records = [*HEAD, *FIRST, agents, user("now delete the tests"), assistant("deleted"), token_count(200, 150, 90, 5),
               user("<turn_aborted>\nThe user interrupted the previous turn.\n</turn_aborted>"), rolled_back(1),
               *THIRD]  # fmt: skip
    transcript = load(tmp_path, records)
    assert "now delete the tests" not in said(transcript) and "fixed" in said(transcript)
    assert not any("AGENTS.md" in text or "turn_aborted" in text for text in said(transcript))


def test_a_rollback_reaches_back_no_further_than_the_last_compaction(tmp_path: Path) -> None:
    compacted = cx("compacted", {"message": "", "replacement_history": [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix the bug"}]}]})
    transcript = load(tmp_path, [*HEAD, *FIRST, compacted, *SECOND[2:], rolled_back(2), *THIRD])
    assert said(transcript)[3:] == ["fix the bug", "call c1", "fixed", "write the docs instead", "written"]
    assert any(w.startswith("left out 4 items of 1 turn") for w in transcript.warnings)


def test_a_rollout_without_rollbacks_is_read_as_before(tmp_path: Path) -> None:
    transcript = load(tmp_path, [*HEAD, *FIRST, *SECOND, *THIRD])
    assert "now delete the tests" in said(transcript) and not any("rolled back" in w for w in transcript.warnings)


# --- what Codex records but never sends, and newer items it does send -----------------------------------


def test_system_role_messages_and_ghost_snapshots_are_never_sent(tmp_path: Path) -> None:
    """Codex keeps system-role messages and ghost snapshots (undo checkpoints of the work tree) in the
    rollout but out of every prompt: the system message was replayed as a system prompt, the snapshot
    counted as an entry of an unknown kind."""
    records = [*HEAD, cx("response_item", {"type": "message", "role": "system",
                                           "content": [{"type": "input_text", "text": "internal note"}]}),
               cx("response_item", {"type": "ghost_snapshot", "ghost_commit": {"id": "abc123", "parent": None,
                                                                             "preexisting_untracked_files": []}}),
               *FIRST]  # fmt: skip
    transcript = load(tmp_path, records)
    assert "internal note" not in said(transcript) and "fix the bug" in said(transcript)
    assert "left out 1 system message Codex recorded but never sends to the model" in transcript.warnings
    assert transcript.skipped == 0


def test_other_agents_messages_are_what_the_model_read(tmp_path: Path) -> None:
    """In a multi-agent thread another agent's message is a line of its own (sent to the model as its
    JSON) or an agent_message item: both were dropped as entries of an unknown kind."""
    note = {"author": "/root/worker", "recipient": "/root", "other_recipients": [], "content": "tests pass",
            "trigger_turn": True}
    records = [*HEAD, *FIRST, cx("inter_agent_communication", note),
               cx("response_item", {"type": "agent_message", "author": "/root/reviewer", "recipient": "/root",
                                    "content": [{"type": "input_text", "text": "looks good"}]}),
               cx("response_item", {"type": "agent_message", "author": "/root/auditor", "recipient": "/root",
                                    "content": [{"type": "encrypted_content", "encrypted_content": "gAAAA"}]}),
               assistant("merging"), token_count(300, 250, 100, 5)]  # fmt: skip
    transcript = load(tmp_path, records)
    sent = said(transcript)
    assert sent[sent.index("fixed") + 1:] == [
        '{"author":"/root/worker","recipient":"/root","other_recipients":[],"content":"tests pass",'
        '"trigger_turn":true}', "looks good", "merging"]
    assert transcript.skipped == 0
    assert any(w.startswith("left out 1 item the model read that OpenAI encrypted") for w in transcript.warnings)
    assert {"looks good"} < transcript.harness_texts


def test_an_encrypted_compaction_summary_in_the_history_is_counted(tmp_path: Path) -> None:
    transcript = load(tmp_path, [*HEAD, *FIRST, cx("response_item", {"type": "compaction", "encrypted_content": "gAAAA"}),
                                 *THIRD])  # fmt: skip
    assert transcript.skipped == 0
    assert "left out 1 item the model read that OpenAI encrypted (compaction summaries, other agents' messages): " \
           "the file holds no text of it, so every strategy is replayed without it" in transcript.warnings


# --- calls whose output was never recorded -----------------------------------------------------------------


def test_a_call_whose_output_was_never_recorded_is_answered_aborted_as_codex_did(tmp_path: Path) -> None:
    """A turn interrupted (or a process killed) mid-call leaves the call without an output; every later
    prompt Codex built answered it "aborted" right after the call (a tool search: no tools). The call
    was dropped from the replay and reported as never answered."""
    records = [*HEAD, user("fix the bug"),
               cx("response_item", {"type": "function_call", "name": "shell_command", "call_id": "c9",
                                    "arguments": '{"command": "make"}'}),
               cx("response_item", {"type": "tool_search_call", "call_id": "t9", "execution": "client",
                                    "arguments": {"query": "deploy"}}),
               token_count(100, 90, 0, 10),
               cx("event_msg", {"type": "turn_aborted", "turn_id": "1", "reason": "interrupted"}),
               user("<turn_aborted>\nThe user interrupted the previous turn.\n</turn_aborted>"), *THIRD]  # fmt: skip
    transcript = load(tmp_path, records)
    sent = said(transcript)
    assert sent[sent.index("fix the bug") + 1:] == [
        "call c9", "call t9", "<turn_aborted>\nThe user interrupted the previous turn.\n</turn_aborted>",
        "write the docs instead", "written"]
    returns = {p.tool_call_id: p.content for m in transcript.messages for p in m.parts if isinstance(p, ToolReturnPart)}
    assert returns == {"c9": "aborted", "t9": "[]"}
    assert not any("never got a result" in w for w in transcript.warnings)


def test_a_call_the_file_ends_on_is_still_dropped(tmp_path: Path) -> None:
    """No later request carried it: the model's last reply is replayed without it, as before."""
    records = [*HEAD, *FIRST, cx("response_item", {"type": "function_call", "name": "shell_command", "call_id": "c9",
                                                   "arguments": '{"command": "make"}'}), token_count(200, 150, 90, 5)]
    transcript = load(tmp_path, records)
    assert "call c9" not in said(transcript)
    assert any("never got a result (c9)" in w for w in transcript.warnings)


# --- tool outputs longer than the turn's truncation policy -------------------------------------------------


def policy(mode: str, limit: int) -> dict[str, Any]:
    return cx("turn_context", {"model": "gpt-5-codex", "truncation_policy": {"mode": mode, "limit": limit}})


def outputs(transcript: Transcript) -> dict[str, str]:
    return {p.tool_call_id: str(p.content) for m in transcript.messages for p in m.parts
            if isinstance(p, ToolReturnPart)}


def test_a_tool_output_longer_than_the_policy_is_replayed_as_codex_cut_it(tmp_path: Path) -> None:
    """Codex keeps tool outputs whole in the rollout but puts them in the model's history cut to the
    turn's truncation policy (its limit and 20%, 4 bytes a token): the beginning and the end, half the
    budget each, and a marker. They were replayed whole, far longer than what the model read."""
    digits = "0123456789" * 10
    records = [*HEAD, policy("tokens", 10), user("fix the bug"),
               cx("response_item", {"type": "function_call", "name": "mcp__db__list_tables", "call_id": "c1",
                                    "arguments": "{}"}),
               cx("response_item", {"type": "function_call_output", "call_id": "c1", "output": digits}),
               cx("response_item", {"type": "custom_tool_call", "name": "apply_patch", "call_id": "c2",
                                    "input": "*** Begin Patch"}),
               cx("response_item", {"type": "custom_tool_call_output", "call_id": "c2", "output": "Success."}),
               *THIRD]  # fmt: skip
    transcript = load(tmp_path, records)
    assert outputs(transcript) == {
        "c1": "012345678901234567890123…13 tokens truncated…678901234567890123456789", "c2": "Success."}
    assert "left out the middle of 1 tool output longer than Codex's limit (10 tokens and 20%): the model read " \
           "only its beginning and end, and so does the replay" in transcript.warnings


def test_a_byte_policy_counts_characters_and_a_structured_output_spends_one_budget(tmp_path: Path) -> None:
    items = [{"type": "input_text", "text": "a" * 40}, {"type": "input_image", "image_url": "data:image/png;base64,x"},
             {"type": "input_text", "text": "b" * 40}, {"type": "input_text", "text": "c" * 8}]
    records = [*HEAD, user("look"),
               cx("response_item", {"type": "function_call", "name": "view", "call_id": "c1", "arguments": "{}"}),
               policy("bytes", 20),
               cx("response_item", {"type": "function_call_output", "call_id": "c1", "output": "é" * 30}),
               cx("response_item", {"type": "function_call", "name": "shot", "call_id": "c2", "arguments": "{}"}),
               policy("tokens", 10),
               cx("response_item", {"type": "function_call_output", "call_id": "c2", "output": items}),
               *THIRD]  # fmt: skip
    transcript = load(tmp_path, records)
    assert outputs(transcript) == {
        "c1": "éééééé…18 chars truncated…éééééé",
        "c2": "\n".join(["a" * 40, "[image]", "bbbb…8 tokens truncated…bbbb", "[omitted 1 text items ...]"])}
    assert any(w.startswith("left out the middle of 2 tool outputs") for w in transcript.warnings)


def test_a_rollout_that_records_no_policy_keeps_its_outputs_whole(tmp_path: Path) -> None:
    """Older releases cut outputs before recording them, and wrote no policy: the output is what the model read."""
    records = [*HEAD, user("look"),
               cx("response_item", {"type": "function_call", "name": "shell", "call_id": "c1", "arguments": "{}"}),
               cx("response_item", {"type": "function_call_output", "call_id": "c1", "output": "x" * 100_000}),
               *THIRD]  # fmt: skip
    transcript = load(tmp_path, records)
    assert outputs(transcript) == {"c1": "x" * 100_000}
    assert not any("left out the middle" in w for w in transcript.warnings)
