"""A first message attaching a document that fits the window, but not with the room kept for the
answer, goes to the model whole: the only compaction there was folded that message itself into a
record, which names the document and leaves it out, and the model was asked "summarise this"
without it, nothing said (decisions/asked_document.py)."""

from __future__ import annotations

import asyncio

import pytest
from pydantic_ai import Agent, BinaryContent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from compact_agent.context import ContextManager, Event, WindowTooSmallError
from compact_agent.context.testing import reply_to_library_request


def documents_sent(chars: int) -> tuple[list[int], list[Event]]:
    """How many documents each of the agent's requests held, and the manager's events, for one run
    asked to summarise a text file of `chars` characters in a 16,000-token window."""
    seen: list[int] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        usage = RequestUsage(input_tokens=100, output_tokens=10)
        if (reply := reply_to_library_request(messages, "Summary.", usage=usage)) is not None:
            return reply
        seen.append(sum(isinstance(x, BinaryContent) for m in messages if isinstance(m, ModelRequest)
                        for p in m.parts if isinstance(p, UserPromptPart) and not isinstance(p.content, str)
                        for x in p.content))
        return ModelResponse(parts=[TextPart("summarised")], usage=usage)

    events: list[Event] = []
    agent = Agent(FunctionModel(model), capabilities=[ContextManager(window=16_000, event_handler=events.append)])
    doc = BinaryContent(data=b"abcd" * (chars // 4), media_type="text/plain", identifier="notes.txt")
    assert asyncio.run(agent.run(["Summarise this.", doc])).output == "summarised"
    return seen, events


def test_a_document_past_the_answers_room_but_within_the_window_is_sent_whole() -> None:
    for chars in (48_000, 62_000):  # about 12,000 and 15,500 tokens: past the hard limit, within the window
        seen, events = documents_sent(chars)
        assert seen == [1], (chars, seen)
        assert not [e for e in events if e.kind == "compact"], (chars, [(e.kind, e.action) for e in events])


def test_a_document_the_window_cannot_hold_is_still_refused() -> None:
    with pytest.raises(WindowTooSmallError, match="notes.txt"):
        documents_sent(64_000)
