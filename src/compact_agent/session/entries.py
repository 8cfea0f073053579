"""One line of a session file: the format version, boundaries, messages as JSON, text UTF-8 can hold.

Shared by the writer (`store.py`) and the reader (`loading.py`), so both agree on what a line is.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pydantic_ai.messages import (
    FileUrl,
    ModelMessage,
    ModelMessagesTypeAdapter,
)

from .answered import from_the_model
from .journal import FORMAT_VERSION, now_iso, utf8_safe

__all__ = ["FORMAT_VERSION", "Boundary", "Loaded", "from_the_model", "now_iso", "utf8_safe"]


def saves_a_reply(entry: dict[str, Any]) -> bool:
    """Whether `entry` saves a reply of the model (not one of ours: a turn closed unanswered)."""
    message = entry.get("message")
    return (entry.get("kind") == "message" and isinstance(message, dict) and message.get("kind") == "response"
            and from_the_model(message.get("metadata")))


@dataclass
class Boundary:
    trigger: str
    strategy: str
    tokens_before: int
    tokens_after: int
    archive: str
    time: str
    messages_summarized: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def when(self) -> datetime | None:
        """`time` as a moment (UTC where it names no zone), or None when it is not one."""
        try:
            t = datetime.fromisoformat(self.time)
        except ValueError:
            return None
        return t if t.tzinfo is not None else t.replace(tzinfo=UTC)

    @classmethod
    def from_json(cls, b: Any) -> Boundary:
        """Lenient: a field of the wrong type gets its default instead of failing the line."""
        if not isinstance(b, dict):
            raise ValueError("boundary is not an object")

        def num(v: Any) -> int:
            return v if isinstance(v, int) and not isinstance(v, bool) else 0

        extra = b.get("extra")
        return cls(trigger=str(b.get("trigger", "")), strategy=str(b.get("strategy", "")),
                   tokens_before=num(b.get("tokens_before")), tokens_after=num(b.get("tokens_after")),
                   archive=str(b.get("archive", "") or ""), time=str(b.get("time", "")),
                   messages_summarized=num(b.get("messages_summarized")),
                   extra=extra if isinstance(extra, dict) else {})


@dataclass
class Loaded:
    messages: list[ModelMessage]
    boundaries: list[Boundary]
    warnings: list[str]
    meta: dict[str, Any]
    #: Lines read as entries, the prompt this process saved before the load not counted: 0 with
    #: unreadable lines is a file that is no session file (random bytes), not one a crash tore.
    read: int = 0
    #: `warnings` as a compaction's archive is read: an archive is the conversation as a compaction
    #: found it, mid-turn as often as not, so where it stops says nothing of where a run ended.
    archive_warnings: list[str] = field(default_factory=list)
    #: What the load says that is no problem (a turn the user stopped): said plainly, not as a warning.
    notes: list[str] = field(default_factory=list)
    #: Lines that are no entry (torn, garbled, over the size cap): what a run holding the session
    #: sets aside (unreadable.py).
    unreadable: int = 0
    #: The history ends at the user's message whose answer the model gave and a run could not save
    #: (last_run.ANSWER_NOT_SAVED): the user read it, the history lacks it.
    answer_not_saved: bool = False
    #: …or at the user's message for which the model's tool calls ran, and could not be saved with their
    #: results (last_run.CALLS_NOT_SAVED): their tools, in order; what they changed may be in place.
    calls_not_saved: list[str] = field(default_factory=list)
    #: …or at a request a signal ended the run while it was out (last_run.SIGNALLED): the signal's name.
    signalled: str = ""


def _dump_message(m: ModelMessage) -> Any:
    try:
        return json.loads(ModelMessagesTypeAdapter.dump_json([m]))[0]
    except (ValueError, UnicodeError):  # a lone surrogate in a reply: save it with U+FFFD, never lose it
        obj = ModelMessagesTypeAdapter.dump_python([m], mode="json")[0]
        return json.loads(utf8_safe(json.dumps(obj, ensure_ascii=False)))


def _load_message(obj: Any) -> ModelMessage:
    """The message of a line, or ValueError (an unreadable line) when it is not one this program
    writes. A part holding a URL to a file (`document-url`, `image-url`, …) is none: the agent
    attaches files by their bytes, while a URL part in a damaged or planted file made every request of
    the session fail, blaming the provider's reply, and handed an address of the file's choosing to
    whatever pydantic-ai or the provider does with one."""
    message = ModelMessagesTypeAdapter.validate_python([obj])[0]
    for part in message.parts:
        content = getattr(part, "content", None)
        if any(isinstance(x, FileUrl) for x in (content if isinstance(content, list | tuple) else [content])):
            raise ValueError(f"a {part.part_kind} part holds a URL to a file, which compact-agent never writes")
    return message
