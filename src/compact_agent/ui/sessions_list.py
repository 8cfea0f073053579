"""The sessions of a project, newest first, as `compact-agent sessions`, `/resume` and the
`--resume` picker list them: id, when, size, and the first thing the user asked."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from ..context.compaction.summary import MARK, is_synthetic_text
from ..session.loading import readable_entries
from ..session.store import list_sessions
from .visible import one_line

MAX_LISTED = 20


@dataclass
class SessionRow:
    id: str
    modified: str
    messages: int
    first_prompt: str


def first_prompt(path: Path, max_entries: int = 200) -> tuple[str, int]:
    """(first user prompt, number of messages) of a session file, without loading them: only the
    messages a load reads are counted (a torn or garbage line is none; a compaction's boundary, a
    note of the session's are no message), the number `/resume` then says it resumed."""
    prompt = ""
    n = 0
    try:
        for entry in readable_entries(path):
            if entry.get("kind") != "message":
                continue
            n += 1
            if prompt or n > max_entries:
                continue
            message = entry.get("message") or {}
            prompt = _first_words(message) if isinstance(message, dict) else ""
    except OSError:
        return "", 0
    return as_typed(prompt), n


INIT_START = "Look at this repository and write an AGENTS.md"  # more_commands.INIT_PROMPT's first words


def as_typed(prompt: str) -> str:
    """A prompt as the user typed it: `/init` for the prompt we send behind that command (the
    user never wrote it), anything else as it is."""
    return "/init" if prompt.startswith(INIT_START) else prompt


def _first_words(message: dict[str, Any]) -> str:
    """The first thing the user typed in a stored message: its first prompt of theirs, or, in a
    compaction's message (our text), the oldest of the user's messages it carries. On one line, its
    control characters kept: the listing shows them as escapes (`\\r`), as a prompt was typed."""
    meta = message.get("metadata")
    ours = meta.get(MARK) if isinstance(meta, dict) else None
    carried = ours.get("user_messages") if isinstance(ours, dict) else None
    for part in message.get("parts", []) if isinstance(message.get("parts"), list) else []:
        if not (isinstance(part, dict) and part.get("part_kind") == "user-prompt" and isinstance(part.get("content"), str)):
            continue
        if is_synthetic_text(part["content"]):
            if isinstance(carried, list) and carried and isinstance(carried[0], str):
                return one_line(carried[0])
            continue
        return one_line(part["content"])
    return ""


def session_rows(root: Path, limit: int = MAX_LISTED) -> list[SessionRow]:
    rows = []
    for p in list_sessions(root)[:limit]:
        prompt, lines = first_prompt(p)
        when = datetime.fromtimestamp(p.stat().st_mtime).strftime("%Y-%m-%d %H:%M")
        rows.append(SessionRow(p.stem, when, lines, prompt))
    return rows


def format_row(i: int | None, r: SessionRow, width: int = 70) -> str:
    from .render import clip_words

    prompt = clip_words(r.first_prompt, width)
    head = f"{i:>3}. " if i is not None else "  "
    count = f"{r.messages:>5} {'message ' if r.messages == 1 else 'messages'}"
    return f"{head}{r.id}  {r.modified}  {count}  {prompt or '(no prompt)'}"
