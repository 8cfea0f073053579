"""What a Claude Code ``attachment`` line put in front of the model, as text.

Versions since 2.1 record the context the harness adds to a request as ``attachment`` lines
(``{"type": "attachment", "attachment": {"type": KIND, ...}}``): hook output, todo and plan-mode
reminders, files the person edited or opened, nested ``CLAUDE.md`` files, diagnostics, skill and tool
listings, re-announcements after a compaction. Claude Code renders most kinds into the prompt as
``<system-reminder>`` text in the user's role (or, for newer models, as a system turn at the same
place), so the model read them on every later request; a few kinds only feed its own window (a hook
that printed nothing for the model, permission lists, non-blocking hook errors) and reach no request,
and newer versions keep copies of the system prompt and tool list as sent, which are no messages.

* Versions from about 2.1.26x write what the model read beside the attachment, as
  ``rendered: [{content}]``: that text is taken as it is, and an attachment without it, in a file
  whose other attachments carry it, was not rendered.
* Older versions wrote only the attachment's fields. The text is then rebuilt from the fields that
  vary (a hook's context, the edited lines, the file read, the listing), headed by the kind's name:
  Claude Code's fixed wording around them is not reproduced, so a kind whose rendering is mostly
  fixed instructions (plan mode, auto mode) weighs less in the replay than it did in the prompt.
* A hook's plain output (``hook_success``) reached the model only from SessionStart and
  UserPromptSubmit hooks, and only its ``content`` (not ``stdout``, which the UI shows).
* A kind this importer does not know is counted apart: what it showed the model, if anything, is
  missing from the replay, and the warning names it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ._common import IMAGE_PLACEHOLDER, counted, text_of_blocks

NEVER_SHOWN = frozenset({
    "already_read_file", "autocheckpointing", "background_task_status", "bagel_console", "command_permissions",
    "current_session_memory", "dynamic_skill", "edited_image_file", "hook_cancelled", "hook_error_during_execution",
    "hook_non_blocking_error", "hook_permission_decision", "hook_system_message", "max_turns_reached",
    "structured_output", "teammate_shutdown_batch",
})  # fmt: skip
"""Kinds Claude Code records for its own window and renders into no request."""
RECORDS_ONLY = frozenset({"prompt_snapshot", "deferred_tools_record"})
"""Copies of the system prompt and of the tool list as sent, kept for the record: no message of the
conversation, whatever they carry."""

_HOOK_EVENTS_SHOWN = frozenset({"SessionStart", "UserPromptSubmit"})

# The fields of each kind the model read, in order; "a|b" takes the first of the two the line has.
_SHOWN_FIELDS: dict[str, tuple[str, ...]] = {
    "agent_listing_delta": ("addedLines|addedTypes", "removedTypes"),
    "agent_mention": ("agentType",),
    "async_agent_status": ("description", "status", "error"),
    "async_hook_response": ("response",),
    "auto_mode": (),
    "auto_mode_exit": (),
    "background_remote_session_status": ("title", "status", "deltaSummarySinceLastFlushToAttachment"),
    "background_shell_status": ("command", "status", "exitCode"),
    "budget_usd": ("used", "total", "remaining"),
    "compact_file_reference": ("filename",),
    "compaction_reminder": (),
    "critical_system_reminder": ("content",),
    "date_change": ("newDate",),
    "deferred_tools_delta": ("addedLines|addedNames", "removedNames"),
    "diagnostics": ("files",),
    "directory": ("path", "content"),
    "edited_text_file": ("filename", "snippet"),
    "hook_additional_context": ("hookName", "content"),
    "hook_blocking_error": ("hookName", "blockingError"),
    "hook_stopped_continuation": ("hookName", "message"),
    "hook_success": ("hookName", "content"),
    "invoked_skills": ("skills",),
    "mcp_instructions_delta": ("addedBlocks", "removedNames"),
    "mcp_resource": ("server", "uri", "content"),
    "memory": ("memories",),
    "nested_memory": ("content",),
    "opened_file_in_ide": ("filename",),
    "output_style": ("style",),
    "output_token_usage": ("turn", "session", "budget"),
    "pdf_reference": ("filename", "pageCount"),
    "plan_file_reference": ("planFilePath", "planContent"),
    "plan_mode": ("planFilePath",),
    "plan_mode_exit": ("planFilePath",),
    "plan_mode_reentry": ("planFilePath",),
    "relevant_memories": ("memories",),
    "selected_lines_in_ide": ("filename", "lineStart", "lineEnd", "content"),
    "skill_listing": ("content",),
    "task_reminder": ("content",),
    "task_status": ("description", "status", "deltaSummary"),
    "team_context": ("teamName", "teammates"),
    "teammate_mailbox": ("messages",),
    "todo": ("content",),
    "todo_reminder": ("content",),
    "token_usage": ("used", "total", "remaining"),
    "total_tokens_reminder": ("text",),
    "ultramemory": ("content",),
    "ultrathink_effort": (),
    "verify_plan_reminder": (),
}
_NOT_TEXT = frozenset({"type", "base64", "data", "source", "uuid", "toolUseID"})  # keys whose values no one read


def renders(records: list[Mapping[str, Any]]) -> bool:
    """The file was written by a version that records each attachment's rendering beside it."""
    return any(r.get("type") == "attachment" and isinstance(r.get("rendered"), list) for r in records)


def shown_text(record: Mapping[str, Any], *, file_renders: bool) -> str | None:
    """What the model read of this attachment line: "" when it read nothing, None when the kind is
    one this importer does not know (see the module docstring)."""
    attachment = record["attachment"]
    kind = attachment.get("type")
    rendered = record.get("rendered")
    if kind in RECORDS_ONLY:
        return ""
    if isinstance(rendered, list):
        return "\n".join(text_of_blocks(r.get("content")) for r in rendered if isinstance(r, Mapping))
    if kind in NEVER_SHOWN:
        return ""
    if kind == "hook_success" and attachment.get("hookEvent") not in _HOOK_EVENTS_SHOWN:
        return ""
    if kind == "file":
        return _file(attachment)
    fields = _SHOWN_FIELDS.get(str(kind))
    if fields is None:
        return "" if file_renders else None
    if kind in {"hook_success", "hook_additional_context"} and not any(
            p.strip() for p in _pieces(attachment.get("content"))):
        return ""  # a hook that said nothing to the model
    body = "\n".join(piece for name in fields for piece in _pieces(_field(attachment, name)) if piece.strip())
    label = str(kind).replace("_", " ")
    return f"{label}:\n{body}" if body else label


def skipped_notes(unseen: int, unknown: Mapping[str, int]) -> list[str]:
    """The warnings on the attachments left out: those the model never read, and those of kinds not
    known here (named, the first few)."""
    notes = [f"skipped {counted(unseen, 'attachment')} Claude Code showed only in its own window (hook runs, "
             f"permission lists and the like): the model never read {'it' if unseen == 1 else 'them'}"] if unseen else []
    if unknown:
        count, names = sum(unknown.values()), sorted(unknown)
        listed = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
        notes.append(f"skipped {counted(count, 'attachment')} of {'a kind' if len(names) == 1 else 'kinds'} the "
                     f"analyzer does not know ({listed}): what {'it' if count == 1 else 'they'} showed the model, "
                     "if anything, is missing from the replay")
    return notes


def _field(attachment: Mapping[str, Any], name: str) -> Any:
    for alternative in name.split("|"):
        if alternative in attachment:
            return attachment[alternative]
    return None


def _file(attachment: Mapping[str, Any]) -> str:
    """A file the person named with @, sent as a Read of it: its text (a notebook's cells), or a
    placeholder for an image or a PDF, whose bytes no strategy reads."""
    content = attachment.get("content")
    kind = content.get("type") if isinstance(content, Mapping) else None
    if kind == "image":
        body = IMAGE_PLACEHOLDER
    elif kind == "pdf":
        body = "[pdf]"
    else:
        inner = content.get("file") if isinstance(content, Mapping) else content
        text = inner.get("content", inner.get("cells")) if isinstance(inner, Mapping) else inner
        body = "\n".join(p for p in _pieces(text) if p.strip())
    return f"file: {attachment.get('filename') or ''}\n{body}".rstrip()


def _pieces(value: Any, depth: int = 0) -> Iterator[str]:
    """The text in a field: strings and numbers, nested lists and objects in order (a dozen levels
    deep at most), no ids or bytes."""
    if depth > 12:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield str(value)
    elif isinstance(value, Mapping):
        for key, inner in value.items():
            if key not in _NOT_TEXT:
                yield from _pieces(inner, depth + 1)
    elif isinstance(value, list):
        for inner in value:
            yield from _pieces(inner, depth + 1)
