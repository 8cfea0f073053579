"""What survives a compaction: the user's messages, the files the agent changed, the last request.

Retention is judged on the first request a strategy sends after each of its compactions, against
what the transcript holds up to that point, by plain text presence: a user message counts as kept
when its first 200 characters (whitespace-normalised) appear verbatim anywhere in what is sent, a
changed file when its path does. Verbatim presence is strict on purpose: a summary that paraphrases
"use tabs, never spaces" has not kept the instruction in the user's words.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from ..context.summary import is_synthetic_text

KEY_CHARS = 200
EDIT_TOOLS = frozenset({"edit", "write", "multiedit", "notebookedit", "edit_file", "write_file",
                        "str_replace_editor", "create_file", "apply_patch"})
PATH_KEYS = ("file_path", "path", "notebook_path", "filename")
_PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add) File: (.+)$", re.M)


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)):
        return " ".join(_content_text(c) for c in content)
    if content is None:
        return ""
    try:
        return json.dumps(content, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(content)


def message_text(m: ModelMessage) -> str:
    """The text a model reads in one message: prompts, answers, tool arguments and results."""
    pieces: list[str] = []
    for p in m.parts:
        if isinstance(p, ToolCallPart):
            pieces.append(p.tool_name + " " + (p.args if isinstance(p.args, str) else _content_text(p.args)))
        elif isinstance(p, (UserPromptPart, ToolReturnPart, TextPart, ThinkingPart)):
            pieces.append(_content_text(p.content))
        else:
            pieces.append(_content_text(getattr(p, "content", "")))
    return "\n".join(pieces)


def user_texts(messages: Sequence[ModelMessage]) -> list[str]:
    """What the user typed (not summaries, restored files or other text an agent wrote as the user)."""
    out: list[str] = []
    for m in messages:
        if not isinstance(m, ModelRequest):
            continue
        for p in m.parts:
            if isinstance(p, UserPromptPart) and not is_synthetic_text(p.content):
                text = _content_text(p.content).strip()
                if text:
                    out.append(text)
    return out


def _args(part: ToolCallPart) -> dict[str, Any] | str:
    if isinstance(part.args, dict):
        return part.args
    try:
        parsed = json.loads(part.args or "{}")
    except ValueError:
        return part.args or ""
    return parsed if isinstance(parsed, dict) else str(parsed)


def changed_paths(messages: Sequence[ModelMessage]) -> list[str]:
    """Paths named by edit/write tool calls (Claude Code, Codex apply_patch, ours), first change first."""
    out: list[str] = []
    for m in messages:
        if not isinstance(m, ModelResponse):
            continue
        for p in m.parts:
            if not isinstance(p, ToolCallPart) or p.tool_name.lower() not in EDIT_TOOLS:
                continue
            args = _args(p)
            found: list[str] = []
            if isinstance(args, dict):
                found += [v for k in PATH_KEYS if isinstance(v := args.get(k), str) and v]
                text = " ".join(v for v in args.values() if isinstance(v, str))
            else:
                text = args
            found += _PATCH_FILE.findall(text)
            out += [f.strip() for f in found if f.strip() not in out]
    return out


def key(text: str) -> str:
    return " ".join(text.split())[:KEY_CHARS]


@dataclass
class Truth:
    """What the transcript holds so far: the reference a compaction's retention is judged against."""

    users: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    def add(self, messages: Sequence[ModelMessage]) -> None:
        self.users += user_texts(messages)
        for path in changed_paths(messages):
            if path not in self.files:
                self.files.append(path)


@dataclass
class Retention:
    users: float  # share of the user's messages present in the first request after a compaction
    files: float | None  # share of the files changed so far that are named in it (None: none changed)
    last_request: bool


def retention_of(truth: Truth, sent_text: str) -> Retention:
    """Retention of `truth` in `sent_text` (whitespace-normalised text of a request)."""
    kept = sum(1 for u in truth.users if key(u) in sent_text)
    files = sum(1 for f in truth.files if f in sent_text) / len(truth.files) if truth.files else None
    last = bool(truth.users) and key(truth.users[-1]) in sent_text
    return Retention(kept / len(truth.users) if truth.users else 1.0, files, last)
