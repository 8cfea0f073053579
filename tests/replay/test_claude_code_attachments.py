"""Claude Code attachment lines: the context the harness added to the prompt, as the model read it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic_ai.messages import UserPromptPart

from compact_agent.replay import load_transcript
from compact_agent.replay.retention import typed_texts

from ._helpers import assert_valid_conversation
from .test_importer_traps import cc_assistant, cc_user, tool_result, tool_use, write_jsonl


def attached(kind: str, ts: str, *, rendered: list[Any] | None = None, **fields: Any) -> dict[str, Any]:
    line: dict[str, Any] = {"type": "attachment", "uuid": f"at-{ts}", "timestamp": ts,
                            "attachment": {"type": kind, **fields}}
    return line if rendered is None else line | {"rendered": rendered}


def prompts(path: Path) -> list[str]:
    transcript = load_transcript(path)
    assert_valid_conversation(transcript.messages)
    return [str(p.content) for m in transcript.messages for p in m.parts if isinstance(p, UserPromptPart)]


def test_attachments_of_older_versions_are_rebuilt_from_their_fields(tmp_path: Path) -> None:
    """Before Claude Code wrote down what it rendered, an attachment holds only its fields: a hook's
    context, the lines the person edited, the todo list, a file named with @ are what the model read;
    a hook that printed only for the window, a permission list and a hook's non-blocking error it never
    read. None of them is the person's typing."""
    records = [
        attached("hook_success", "2026-01-01T09:59:59Z", hookName="SessionStart:startup", hookEvent="SessionStart",
                 content="house rules: tabs, not spaces", stdout="house rules: tabs, not spaces"),
        cc_user("fix the bug", "2026-01-01T10:00:00Z"),
        attached("file", "2026-01-01T10:00:00.5Z", filename="/src/app.py",
                 content={"type": "text", "file": {"filePath": "/src/app.py", "content": "def main(): pass"}}),
        cc_assistant("msg_1", tool_use("t1"), "2026-01-01T10:00:01Z", 9, final=True),
        attached("hook_additional_context", "2026-01-01T10:00:02Z", hookName="PreToolUse:Bash",
                 hookEvent="PreToolUse", content=["careful: this is the production database"]),
        cc_user([tool_result("t1", "one")], "2026-01-01T10:00:03Z"),
        attached("hook_success", "2026-01-01T10:00:03.5Z", hookName="PostToolUse:Bash", hookEvent="PostToolUse",
                 content="", stdout="formatted 3 files"),
        attached("edited_text_file", "2026-01-01T10:00:04Z", filename="/src/app.py", snippet="3\tx = 1"),
        attached("todo_reminder", "2026-01-01T10:00:04.5Z", itemCount=1,
                 content=[{"content": "write the tests", "status": "pending"}]),
        attached("command_permissions", "2026-01-01T10:00:05Z", allowedTools=["Bash(git status)"]),
        attached("hook_non_blocking_error", "2026-01-01T10:00:05.5Z", hookName="Stop", stderr="exit 1: boom"),
        attached("auto_mode", "2026-01-01T10:00:06Z"),
        cc_assistant("msg_2", {"type": "text", "text": "done"}, "2026-01-01T10:00:07Z", 3, final=True),
    ]
    path = write_jsonl(tmp_path / "session.jsonl", records)
    texts = prompts(path)
    read = "\n".join(texts)
    for seen in ["house rules: tabs, not spaces", "def main(): pass", "careful: this is the production database",
                 "3\tx = 1", "write the tests", "auto mode"]:
        assert seen in read
    for unseen in ["formatted 3 files", "git status", "boom"]:
        assert unseen not in read
    transcript = load_transcript(path)
    assert typed_texts(transcript.messages, transcript.harness_texts) == ["fix the bug"]
    assert "skipped 3 attachments Claude Code showed only in its own window" in "\n".join(transcript.warnings)
    assert transcript.skipped == 3
    # where each entered: the PreToolUse context in the request answering the call, after its result
    request = transcript.messages[2]
    assert [type(p).__name__ for p in request.parts] == ["ToolReturnPart", "UserPromptPart", "UserPromptPart",
                                                         "UserPromptPart", "UserPromptPart"]


def test_attachments_that_carry_their_rendering_are_taken_as_rendered(tmp_path: Path) -> None:
    """Newer versions write what the model read beside each attachment (rendered): taken word for word;
    an attachment without it in such a file, or with nothing rendered, was not shown, and a copy of the
    system prompt kept for the record is no message whatever it carries. A kind this importer does not
    know, in a file without renderings, is counted and named."""
    listing = "<system-reminder>\nThe following skills are available:\n- review: reviews a diff\n</system-reminder>"
    records = [
        cc_user("review my diff", "2026-01-01T10:00:00Z"),
        attached("skill_listing", "2026-01-01T10:00:00.5Z", rendered=[{"content": listing}], content="- review"),
        attached("deferred_tools_delta", "2026-01-01T10:00:00.7Z", rendered=[], addedNames=["WebFetch"]),
        attached("goal_status", "2026-01-01T10:00:00.8Z", condition="ship it"),
        attached("prompt_snapshot", "2026-01-01T10:00:00.9Z", rendered=[{"content": "You are Claude Code"}],
                 systemPrompt=["You are Claude Code"]),
        cc_assistant("msg_1", {"type": "text", "text": "reviewed"}, "2026-01-01T10:00:01Z", 3, final=True),
    ]
    path = write_jsonl(tmp_path / "session.jsonl", records)
    assert prompts(path) == ["review my diff", listing]
    warnings = "\n".join(load_transcript(path).warnings)
    assert "skipped 3 attachments Claude Code showed only in its own window" in warnings
    older = write_jsonl(tmp_path / "older.jsonl", [records[0], records[3], records[-1]])
    assert prompts(older) == ["review my diff"]
    assert ("skipped 1 attachment of a kind the analyzer does not know (goal_status): what it showed the model, "
            "if anything, is missing from the replay") in load_transcript(older).warnings
