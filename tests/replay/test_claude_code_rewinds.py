"""Claude Code rewinds: the replay follows the branch the model saw last."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic_ai.messages import TextPart, UserPromptPart

from compact_agent.replay import load_transcript

from ._helpers import assert_valid_conversation
from .test_importer_traps import cc_assistant, cc_user, write_jsonl


def chained(record: dict[str, Any], parent: str | None) -> dict[str, Any]:
    return record | {"parentUuid": parent}


def texts(path: Path) -> list[str]:
    transcript = load_transcript(path)
    assert_valid_conversation(transcript.messages)
    return [str(p.content) for m in transcript.messages for p in m.parts if isinstance(p, (UserPromptPart, TextPart))]


def test_a_rewind_to_before_the_first_message_starts_a_new_root(tmp_path: Path) -> None:
    """Rewinding to the very start leaves the next message without a parent (parentUuid null) in the
    middle of the file; what came before it, attachments and system lines included, the model never
    saw again. The session's metadata lines (last-prompt naming the new leaf, titles, modes) are no
    entries to skip."""
    first = cc_user("fix the bug", "2026-01-01T10:00:00Z")
    context = {"type": "attachment", "uuid": "h1", "timestamp": "2026-01-01T10:00:00.5Z",
               "attachment": {"type": "queued_command", "prompt": "and the other one", "commandMode": "prompt"}}
    fixed = cc_assistant("msg_1", {"type": "text", "text": "fixed"}, "2026-01-01T10:00:01Z", 3, final=True)
    command = {"type": "system", "subtype": "local_command", "uuid": "s1", "timestamp": "2026-01-01T10:00:02Z",
               "content": "<local-command-stdout>Set model to opus</local-command-stdout>"}
    again = cc_user("write the docs instead", "2026-01-01T10:00:03Z")
    written = cc_assistant("msg_2", {"type": "text", "text": "written"}, "2026-01-01T10:00:04Z", 3, final=True)
    records = [
        {"type": "mode", "mode": "normal", "sessionId": "s"},
        chained(first, None), chained(context, first["uuid"]), chained(fixed, "h1"), chained(command, fixed["uuid"]),
        chained(again, None), chained(written, again["uuid"]),
        {"type": "last-prompt", "lastPrompt": "write the docs instead", "leafUuid": written["uuid"], "sessionId": "s"},
        {"type": "ai-title", "aiTitle": "Docs", "sessionId": "s"},
        {"type": "permission-mode", "permissionMode": "default", "sessionId": "s"},
    ]  # fmt: skip
    path = write_jsonl(tmp_path / "session.jsonl", records)
    assert texts(path) == ["write the docs instead", "written"]
    transcript = load_transcript(path)
    assert any(w.startswith("left out 4 lines the conversation was rewound past") for w in transcript.warnings)
    assert transcript.skipped == 0


def test_the_first_message_without_a_parent_is_no_rewind(tmp_path: Path) -> None:
    """A file's first message has no parent either, after lines that are no conversation yet."""
    first = cc_user("fix the bug", "2026-01-01T10:00:00Z")
    hook = {"type": "attachment", "uuid": "h0", "timestamp": "2026-01-01T09:59:59Z", "parentUuid": None,
            "attachment": {"type": "queued_command", "prompt": "<task-notification>x</task-notification>",
                           "commandMode": "task-notification"}}
    records = [hook, chained(first, None),
               chained(cc_assistant("msg_1", {"type": "text", "text": "fixed"}, "2026-01-01T10:00:01Z", 3, final=True),
                       first["uuid"])]
    path = write_jsonl(tmp_path / "session.jsonl", records)
    assert texts(path) == ["<task-notification>x</task-notification>", "fix the bug", "fixed"]
    assert not any("rewound" in w for w in load_transcript(path).warnings)


def test_a_rewind_leaves_out_the_attachments_and_system_lines_it_went_past(tmp_path: Path) -> None:
    """A message typed while the agent worked (a queued_command attachment) and a local command's
    output, on the branch a rewind left, were not in what the model saw next."""
    first = cc_user("fix the bug", "2026-01-01T10:00:00Z")
    fixed = cc_assistant("msg_1", {"type": "text", "text": "fixed"}, "2026-01-01T10:00:01Z", 3, final=True)
    lint = cc_user("run lint", "2026-01-01T10:00:02Z")
    queued = {"type": "attachment", "uuid": "q1", "timestamp": "2026-01-01T10:00:03Z",
              "attachment": {"type": "queued_command", "prompt": "and push", "commandMode": "prompt"}}
    command = {"type": "system", "subtype": "local_command", "uuid": "s1", "timestamp": "2026-01-01T10:00:04Z",
               "content": "<local-command-stdout>Set model to opus</local-command-stdout>"}
    linted = cc_assistant("msg_2", {"type": "text", "text": "linted"}, "2026-01-01T10:00:05Z", 3, final=True)
    tests = cc_user("add a test instead", "2026-01-01T10:00:06Z")
    records = [
        chained(first, None), chained(fixed, first["uuid"]), chained(lint, fixed["uuid"]),
        chained(queued, lint["uuid"]), chained(command, "q1"), chained(linted, "s1"),
        chained(tests, fixed["uuid"]),  # rewound to just after "fixed"
        chained(cc_assistant("msg_3", {"type": "text", "text": "added"}, "2026-01-01T10:00:07Z", 3, final=True),
                tests["uuid"]),
    ]  # fmt: skip
    path = write_jsonl(tmp_path / "session.jsonl", records)
    assert texts(path) == ["fix the bug", "fixed", "add a test instead", "added"]
    assert any(w.startswith("left out 4 lines the conversation was rewound past") for w in load_transcript(path).warnings)
