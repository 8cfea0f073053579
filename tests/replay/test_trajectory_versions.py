"""mini-swe-agent and SWE-agent trajectories as their releases wrote them: each hand-made file holds
what one release saves, and the import must be what that agent sent its model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelRequest, ModelResponse, ThinkingPart, ToolReturnPart, UserPromptPart

from compact_agent.replay import detect_format, load_transcript
from compact_agent.replay.retention import typed_texts
from tests.shared_data import DATA, requires_data

from ._helpers import assert_repair_is_noop, assert_valid_conversation, responses, results, tool_calls


def write(path: Path, document: Any) -> Path:
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def request_texts(messages: list[Any]) -> list[str]:
    return [str(p.content) for m in messages if isinstance(m, ModelRequest) for p in m.parts
            if isinstance(p, UserPromptPart | ToolReturnPart)]


def call(call_id: str, command: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function",
            "function": {"name": "bash", "arguments": json.dumps({"command": command})}}


# --- mini-swe-agent -----------------------------------------------------------------------------------


def mini(messages: list[dict[str, Any]], **info: Any) -> dict[str, Any]:
    return {"info": {"config": {"model": {"model_name": "openai/gpt-5"}}, **info}, "messages": messages,
            "trajectory_format": "mini-swe-agent-1.1"}


def test_mini_swe_agent_on_the_responses_api_keeps_its_replies_and_command_outputs(tmp_path: Path) -> None:
    """Its Responses-API models keep each reply as the response object and each output as a
    `function_call_output` item, neither with a role."""
    usage = {"input_tokens": 1_200, "input_tokens_details": {"cached_tokens": 1_000}, "output_tokens": 40,
             "output_tokens_details": {"reasoning_tokens": 12}}
    path = write(tmp_path / "r.traj.json", mini([
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "Fix the parser."},
        {"id": "resp_1", "object": "response", "created_at": 1_775_000_000, "model": "gpt-5", "status": "completed",
         "output": [
             {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Look first."}]},
             {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Listing."}]},
             {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "bash",
              "arguments": "{\"command\": \"ls\"}"}],
         "usage": usage, "extra": {"actions": [{"command": "ls", "tool_call_id": "call_1"}], "timestamp": 1_775_000_001.5}},
        {"type": "function_call_output", "call_id": "call_1", "output": "<returncode>0</returncode>\nparser.py",
         "extra": {"returncode": 0, "raw_output": "parser.py"}},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "No tool calls found."}],
         "extra": {"interrupt_type": "FormatError"}},
        {"id": "resp_2", "object": "response", "created_at": 1_775_000_010, "model": "gpt-5", "status": "completed",
         "output": [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done."}]},
                    {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "bash",
                     "arguments": "{\"command\": \"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\"}"}],
         "usage": usage, "extra": {"timestamp": 1_775_000_011}},
        {"role": "exit", "content": "", "extra": {"exit_status": "Submitted", "submission": ""}},
    ]))
    transcript = load_transcript(path)
    assert transcript.format == "mini-swe-agent" and transcript.skipped == 0
    replies = responses(transcript.messages)
    assert len(replies) == 2 and [c.tool_call_id for c in tool_calls(transcript.messages)] == ["call_1"]
    first = replies[0]
    assert [type(p).__name__ for p in first.parts] == ["ThinkingPart", "TextPart", "ToolCallPart"]
    assert [p.content for p in first.parts if isinstance(p, ThinkingPart)] == ["Look first."]
    assert first.model_name == "gpt-5"
    assert first.provider_response_id == "resp_1" and first.finish_reason == "tool_call"
    assert (first.usage.input_tokens, first.usage.cache_read_tokens, first.usage.output_tokens) == (1_200, 1_000, 40)
    assert results(transcript.messages)[0].content == "<returncode>0</returncode>\nparser.py"
    assert "No tool calls found." in transcript.harness_texts
    assert typed_texts(transcript.messages, transcript.harness_texts) == ["Fix the parser."]
    assert_valid_conversation(transcript.messages)
    assert_repair_is_noop(transcript.messages)


def test_mini_swe_agent_1_submission_message_is_left_out(tmp_path: Path) -> None:
    """1.x releases ended a submitted run with a user message holding the submission, after the last call."""
    diff = "diff --git a/x.py b/x.py\n+fixed\n"
    path = write(tmp_path / "v1.traj.json", {
        "info": {"exit_status": "Submitted", "submission": diff, "mini_version": "1.17.5"},
        "trajectory_format": "mini-swe-agent-1",
        "messages": [
            {"role": "system", "content": "You are a helpful assistant.", "timestamp": 1.0},
            {"role": "user", "content": "Fix x.", "timestamp": 2.0},
            {"role": "assistant", "content": "THOUGHT: done\n\n```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff\n```",
             "timestamp": 3.0, "extra": {"response": {"usage": {"prompt_tokens": 900, "completion_tokens": 30}}}},
            {"role": "user", "content": diff, "timestamp": 4.0},
        ],
    })
    transcript = load_transcript(path)
    assert isinstance(transcript.messages[-1], ModelResponse)
    assert diff not in request_texts(transcript.messages)
    assert any("submission" in w for w in transcript.warnings)


def test_mini_swe_agent_person_typed_interruptions_are_typed_and_command_outputs_are_not(tmp_path: Path) -> None:
    """The interactive agent records a person's interruption with `interrupt_type: UserInterruption`
    and, in human mode, the output of their own command as a user message with `returncode`."""
    path = write(tmp_path / "i.traj.json", mini([
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "Fix x."},
        {"role": "assistant", "content": "Looking.", "tool_calls": [call("c1", "ls")]},
        {"role": "tool", "tool_call_id": "c1", "content": "x.py", "extra": {"returncode": 0}},
        {"role": "user", "content": "Interrupted by user: run the tests first",
         "extra": {"interrupt_type": "UserInterruption"}},
        {"role": "user", "content": "User command: \n```bash\npytest -q\n```", "extra": {"actions": [{"command": "pytest -q"}]}},
        {"role": "user", "content": "<returncode>1</returncode>\n<output>\n1 failed\n</output>",
         "extra": {"raw_output": "1 failed\n", "returncode": 1}},
        {"role": "assistant", "content": "Fixing.", "tool_calls": [call("c2", "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT")]},
        {"role": "exit", "content": "", "extra": {"exit_status": "Submitted", "submission": ""}},
    ]))
    transcript = load_transcript(path)
    assert typed_texts(transcript.messages, transcript.harness_texts) == [
        "Fix x.", "Interrupted by user: run the tests first", "User command: \n```bash\npytest -q\n```"]


def test_mini_swe_agent_billed_replies_it_could_not_parse_are_noted(tmp_path: Path) -> None:
    """2.x keeps an unparsable reply only as the response inside its format-error message."""
    path = write(tmp_path / "f.traj.json", mini([
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "Fix x."},
        {"role": "user", "content": "Tool call error: missing command",
         "extra": {"interrupt_type": "FormatError", "cost": 0.01,
                   "response": {"usage": {"prompt_tokens": 800, "completion_tokens": 5}}}},
        {"role": "assistant", "content": "Ok.", "tool_calls": [call("c1", "ls")]},
        {"role": "tool", "tool_call_id": "c1", "content": "x.py"},
    ]))
    transcript = load_transcript(path)
    assert len(responses(transcript.messages)) == 1
    assert any("1 reply the agent could not parse" in w for w in transcript.warnings)


@requires_data
def test_mini_swe_agent_billed_replies_it_could_not_parse_are_noted_before_it_recorded_them_too() -> None:
    """Before 2.3.1 the format error holds no response, but the call was made and billed all the same
    (this run records 166 calls, 165 replies)."""
    transcript = load_transcript(DATA / "mini-swe-agent-deepseek/deepseek_chat_test_1-100/django__django-13964"
                                 / "django__django-13964.traj.json")
    assert len(responses(transcript.messages)) == 165
    assert any(w.startswith("1 reply the agent could not parse") for w in transcript.warnings)


def test_mini_swe_agent_thinking_in_the_content_list_is_kept(tmp_path: Path) -> None:
    """With Anthropic models it sends thinking blocks back in the assistant's content list."""
    path = write(tmp_path / "t.traj.json", mini([
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "Fix x."},
        {"role": "assistant", "tool_calls": [call("c1", "ls")],
         "reasoning": {"effort": "high"},  # a setting, not text: the thinking is in the content list
         "content": [{"type": "thinking", "thinking": "Where is x?", "signature": "sig"},
                     {"type": "text", "text": "Listing."}]},
        {"role": "tool", "tool_call_id": "c1", "content": "x.py"},
    ]))
    (reply,) = responses(load_transcript(path).messages)
    assert [p.content for p in reply.parts if isinstance(p, ThinkingPart)] == ["Where is x?"]


def test_mini_swe_agent_openrouter_reasoning_is_kept(tmp_path: Path) -> None:
    """Its OpenRouter model keeps the message as OpenRouter returned it, reasoning in `reasoning`, and
    sends it back so."""
    path = write(tmp_path / "o.traj.json", mini([
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "Fix x."},
        {"role": "assistant", "content": "Listing.", "tool_calls": [call("c1", "ls")], "reasoning": "Where is x?",
         "reasoning_details": [{"type": "reasoning.text", "text": "Where is x?"}]},
        {"role": "tool", "tool_call_id": "c1", "content": "x.py"},
    ]))
    (reply,) = responses(load_transcript(path).messages)
    assert [p.content for p in reply.parts if isinstance(p, ThinkingPart)] == ["Where is x?"]


# --- SWE-agent ----------------------------------------------------------------------------------------


def entry(role: str, content: Any, **fields: Any) -> dict[str, Any]:
    return {"role": role, "content": content, "agent": "main", **fields}


def observation(call_id: str, text: str) -> dict[str, Any]:
    return entry("tool", text, message_type="observation", tool_call_ids=[call_id])


def action(call_id: str, command: str, **fields: Any) -> dict[str, Any]:
    return entry("assistant", "Thinking.", message_type="action", tool_calls=[call(call_id, command)], **fields)


def test_swe_agent_demonstration_laid_out_as_messages_is_prompt_not_calls(tmp_path: Path) -> None:
    """With `put_demos_in_history` the example's own assistant and tool messages are in the history
    (`is_demo`): sent as prompt, not calls this run made."""
    path = write(tmp_path / "d.traj", {"info": {}, "trajectory": [], "history": [
        entry("system", "You are SWE-agent.", message_type="system_prompt"),
        entry("user", "Demo task: fix y.", is_demo=True, message_type="observation"),
        action("d1", "cat y.py", is_demo=True),
        entry("tool", "y = 1", is_demo=True, message_type="observation", tool_call_ids=["d1"]),
        entry("user", "Fix x.", message_type="observation"),
        action("c1", "ls"),
        observation("c1", "x.py"),
        action("c2", "submit"),
        observation("c2", "diff"),
    ]})
    transcript = load_transcript(path)
    assert len(responses(transcript.messages)) == 2
    assert [c.tool_call_id for c in tool_calls(transcript.messages)] == ["c1", "c2"]
    first = request_texts(transcript.messages[:1])
    assert "y = 1" in first and any("cat y.py" in t for t in first)
    assert typed_texts(transcript.messages, transcript.harness_texts) == ["Fix x."]
    assert any("worked example" in w for w in transcript.warnings)
    assert_valid_conversation(transcript.messages)


def test_swe_agent_thinking_blocks_are_kept(tmp_path: Path) -> None:
    """It sends an Anthropic model's `thinking_blocks` back with the assistant message."""
    path = write(tmp_path / "t.traj", {"info": {}, "trajectory": [], "history": [
        entry("system", "sys", message_type="system_prompt"),
        entry("user", "Fix x.", message_type="observation"),
        action("c1", "ls", thinking_blocks=[{"type": "thinking", "thinking": "x first", "signature": "s"}]),
        observation("c1", "x.py"),
    ]})
    (reply,) = responses(load_transcript(path).messages)
    assert [p.content for p in reply.parts if isinstance(p, ThinkingPart)] == ["x first"]


def test_swe_agent_thinking_blocks_of_a_text_format_action_are_not_sent(tmp_path: Path) -> None:
    """Without function calling an action's `tool_calls` is None, and its thinking stays behind."""
    path = write(tmp_path / "t.traj", {"info": {}, "trajectory": [], "history": [
        entry("system", "sys", message_type="system_prompt"),
        entry("user", "Fix x.", message_type="observation"),
        entry("assistant", "Look.\n```\nls\n```", message_type="action", tool_calls=None,
              thinking_blocks=[{"type": "thinking", "thinking": "x first", "signature": "s"}]),
        entry("user", "x.py", message_type="observation"),
    ]})
    (reply,) = responses(load_transcript(path).messages)
    assert not [p for p in reply.parts if isinstance(p, ThinkingPart)]


def test_swe_agent_entries_of_another_agent_are_left_out(tmp_path: Path) -> None:
    """An agent sends its model only the history entries under its own name."""
    path = write(tmp_path / "s.traj", {"info": {}, "trajectory": [], "history": [
        entry("system", "sys"),
        entry("user", "Fix x."),
        entry("assistant", "```\nls\n```"),
        {"role": "system", "content": "sub sys", "agent": "edit_subroutine"},
        {"role": "assistant", "content": "sub reply", "agent": "edit_subroutine"},
        entry("user", "x.py"),
    ]})
    transcript = load_transcript(path)
    assert len(responses(transcript.messages)) == 1
    assert "sub reply" not in str(transcript.messages)
    assert any("another agent than main" in w for w in transcript.warnings)


def test_swe_agent_retrying_run_without_a_chosen_attempt_is_a_transcript(tmp_path: Path) -> None:
    """A retrying run writes `{attempts: [...]}` after each step and merges the chosen one only at the end."""
    attempt = {"info": {}, "trajectory": [], "history": [
        entry("system", "sys"), entry("user", "Fix x."), action("c1", "ls"), observation("c1", "x.py")]}
    second = json.loads(json.dumps(attempt))
    second["history"][2]["tool_calls"][0]["id"] = second["history"][3]["tool_call_ids"][0] = "c9"
    path = write(tmp_path / "a.traj", {"attempts": [attempt, second]})
    assert detect_format(path) == "swe-agent"
    transcript = load_transcript(path)
    assert [c.tool_call_id for c in tool_calls(transcript.messages)] == ["c9"]
    assert any("last of 2 attempts" in w for w in transcript.warnings)


def test_swe_agent_history_processors_that_elided_what_it_sent_are_noted(tmp_path: Path) -> None:
    history = [entry("system", "sys", message_type="system_prompt"), entry("user", "Fix x.", message_type="observation")]
    for i in range(4):
        history += [action(f"c{i}", "ls"), observation(f"c{i}", "x.py")]

    def warnings(keep: int) -> list[str]:
        config = {"agent": {"history_processors": [{"type": "last_n_observations", "n": keep}]}}
        path = write(tmp_path / f"h{keep}.traj", {"info": {}, "trajectory": [], "history": history,
                                                  "replay_config": json.dumps(config)})
        return load_transcript(path).warnings

    assert any("last_n_observations 1" in w for w in warnings(1))
    assert warnings(5) == []  # it had no more observations than it keeps: nothing was elided
    history[3] = {**history[3], "tags": ["remove_output"]}  # elided however recent
    assert any("last_n_observations 5" in w for w in warnings(5))


def test_mini_swe_agent_usage_holds_cache_writes_as_each_litellm_release_and_openrouter_report_them(
    tmp_path: Path,
) -> None:
    """Anthropic's prompt is uncached + read + written; litellm reports `prompt_tokens` with the writes
    in some releases and without them in others, the counts themselves beside it; OpenRouter counts
    its `cache_write_tokens` in `prompt_tokens`."""
    with_writes = {"prompt_tokens": 5_000, "completion_tokens": 20, "cache_creation_input_tokens": 1_990,
                   "cache_read_input_tokens": 3_000, "prompt_tokens_details": {"cached_tokens": 3_000}}
    without_writes = {**with_writes, "prompt_tokens": 3_010}
    reads_only_beside = {"prompt_tokens": 3_010, "completion_tokens": 20, "cache_read_input_tokens": 3_000,
                         "prompt_tokens_details": None}
    openrouter = {"prompt_tokens": 194, "completion_tokens": 2,
                  "prompt_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 100}}
    messages: list[dict[str, Any]] = [{"role": "system", "content": "sys"}, {"role": "user", "content": "Fix x."}]
    for i, usage in enumerate([with_writes, without_writes, reads_only_beside, openrouter]):
        messages += [{"role": "assistant", "content": f"step {i}", "tool_calls": [call(f"c{i}", "ls")],
                      "extra": {"response": {"model": "claude-sonnet-4-5", "usage": usage}}},
                     {"role": "tool", "tool_call_id": f"c{i}", "content": "x.py"}]
    read = [(r.usage.input_tokens, r.usage.cache_read_tokens, r.usage.cache_write_tokens)
            for r in responses(load_transcript(write(tmp_path / "u.traj.json", mini(messages))).messages)]
    assert read == [(5_000, 3_000, 1_990), (5_000, 3_000, 1_990), (3_010, 3_000, 0), (194, 0, 100)]


def test_swe_agent_images_embedded_as_text_but_sent_as_images_are_images(tmp_path: Path) -> None:
    """A multimodal task's screenshots sit in the history as base64 markdown; the `image_parsing`
    processor sends them as images, not as the text the history holds."""
    picture = "![shot.png](data:image/png;base64," + "iVBORw0KGgo" * 2_000 + ")"
    history = [entry("system", "sys", message_type="system_prompt"),
               entry("user", f"Fix the layout.\n{picture}", message_type="observation"),
               action("c1", "ls"), observation("c1", "x.py")]

    def first_request(processors: list[dict[str, Any]]) -> tuple[str, list[str]]:
        path = write(tmp_path / f"m{len(processors)}.traj", {
            "info": {}, "trajectory": [], "history": history,
            "replay_config": {"agent": {"history_processors": processors}}})
        transcript = load_transcript(path)
        return request_texts(transcript.messages[:1])[0], transcript.warnings

    text, warnings = first_request([{"type": "cache_control"}, {"type": "image_parsing"}])
    assert text == "Fix the layout.\n![shot.png](data:[image])"
    assert warnings == ["1 image embedded as base64 text, which the run sent as images, replayed as [image]"]
    assert first_request([])[0] == f"Fix the layout.\n{picture}"  # sent as text, read as text


def test_mini_swe_agent_1_human_mode_commands_are_the_persons_words_not_model_calls(tmp_path: Path) -> None:
    """The 1.x interactive agent records a command the person runs in human mode as an assistant
    message (a bare bash block, no response), and their interruptions as plain user messages."""
    reply = {"response": {"usage": {"prompt_tokens": 900, "completion_tokens": 30}}}
    path = write(tmp_path / "h.traj.json", {
        "info": {"exit_status": "LimitsExceeded", "submission": ""}, "trajectory_format": "mini-swe-agent-1",
        "messages": [
            {"role": "system", "content": "sys", "timestamp": 1.0},
            {"role": "user", "content": "Fix x.", "timestamp": 2.0},
            {"role": "assistant", "content": "THOUGHT: look\n\n```bash\nls\n```", "timestamp": 3.0, "extra": reply},
            {"role": "user", "content": "<returncode>0</returncode>\nx.py", "timestamp": 4.0},
            {"role": "assistant", "content": "\n```bash\npytest -q\n```", "timestamp": 5.0},
            {"role": "user", "content": "<returncode>1</returncode>\n1 failed", "timestamp": 6.0},
            {"role": "user", "content": "Interrupted by user: the test is wrong, not x", "timestamp": 7.0},
            {"role": "assistant", "content": "THOUGHT: ok\n\n```bash\ncat test_x.py\n```", "timestamp": 8.0,
             "extra": reply},
            {"role": "user", "content": "<returncode>0</returncode>\nassert 1", "timestamp": 9.0},
        ]})
    transcript = load_transcript(path)
    assert len(responses(transcript.messages)) == 2
    assert typed_texts(transcript.messages, transcript.harness_texts) == [
        "Fix x.", "```bash\npytest -q\n```", "Interrupted by user: the test is wrong, not x"]
    assert any("1 command a person ran in human mode" in w for w in transcript.warnings)
