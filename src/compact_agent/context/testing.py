"""For your tests: tell the library's own requests from your agent's turns, and answer them.

The library makes two kinds of model requests for itself, through the run's model: a summary at
a compaction and, when enabled, session notes. A `FunctionModel` standing in for your provider
receives them like any other request. Each carries a mark in its last message's `metadata`, so a
test model need not recognise the instruction text:

    from compact_agent.context.testing import library_request, reply_to_library_request

    def fake_llm(messages, info):
        if (reply := reply_to_library_request(messages)) is not None:
            return reply            # a summary or notes request, answered with a plausible text
        ...                         # your agent's turn

The mark is never sent to a provider (pydantic-ai sends no message metadata).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart
from pydantic_ai.usage import RequestUsage

from .compaction.notes import SECTIONS

__all__ = ["REQUEST_MARK", "LibraryRequest", "library_request", "mark_request", "reply_to_library_request"]

#: The `metadata` key of the last request of a summary or notes request; its value is the kind.
REQUEST_MARK = "compact_agent_request"
LibraryRequest = Literal["summary", "notes"]


def mark_request(kind: LibraryRequest) -> dict[str, str]:
    """The metadata a library request's instruction message carries."""
    return {REQUEST_MARK: kind}


def library_request(messages: Sequence[ModelMessage]) -> LibraryRequest | None:
    """"summary" or "notes" when `messages` is a request the library makes for itself, else None."""
    if not messages or not isinstance(messages[-1], ModelRequest):
        return None
    meta = messages[-1].metadata
    kind = meta.get(REQUEST_MARK) if isinstance(meta, dict) else None
    if kind == "summary":
        return "summary"
    if kind == "notes":
        return "notes"
    return None


def reply_to_library_request(messages: Sequence[ModelMessage], text: str = "The work so far, in brief.",
                             usage: RequestUsage | None = None) -> ModelResponse | None:
    """A well-formed answer to a library request (`text` inside the tags the library reads), or None
    when `messages` is one of your agent's turns."""
    kind = library_request(messages)
    if kind is None:
        return None
    if kind == "summary":
        body = f"<summary>{text}</summary>"
    else:
        body = "<notes>" + "\n\n".join(f"# {s}\n{text}" for s in SECTIONS) + "</notes>"
    return ModelResponse(parts=[TextPart(body)], usage=usage or RequestUsage())
