"""A store's `OSError` reaches the library's own errors and events in words: its reason and the
file, as `No space left on device: /data/chat.jsonl`. They used to carry Python's rendering of it
(`[Errno 28] No space left on device: '/data/chat.jsonl'`), which a program that shows the error
to its user passed on as it was."""

from __future__ import annotations

import errno
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import CompactionError, ContextManager, Event, HistoryNotSaved
from compact_agent.context.testing import reply_to_library_request

FULL = OSError(errno.ENOSPC, "No space left on device", "/data/chat.jsonl")


class FullDisk:
    """Appends and rewrites work; the archive's copy does not fit."""

    def __init__(self) -> None:
        self.messages: list[ModelMessage] = []

    def append(self, messages: Sequence[ModelMessage]) -> None:
        self.messages.extend(messages)

    def archive(self) -> Path | None:
        raise FULL

    def rewrite(self, boundary: dict[str, Any], messages: Sequence[ModelMessage]) -> None:
        self.messages = list(messages)

    def load_messages(self) -> list[ModelMessage]:
        return list(self.messages)


def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return reply_to_library_request(messages) or ModelResponse(parts=[TextPart("ok")])


def history(turns: int) -> list[ModelMessage]:
    return [m for _ in range(turns) for m in (ModelRequest(parts=[UserPromptPart("question " * 100)]),
                                              ModelResponse(parts=[TextPart("answer " * 100)]))]


async def test_a_compaction_the_store_could_not_archive_says_why_in_words() -> None:
    cm = ContextManager(window=8_000, store=FullDisk())
    with pytest.raises(CompactionError) as caught:
        await cm.compact_now(history(30), model=FunctionModel(model))
    assert str(caught.value) == ("could not archive the transcript, so the session was not rewritten: "
                                 "No space left on device: /data/chat.jsonl")


async def test_a_failed_automatic_compaction_event_says_why_in_words() -> None:
    events: list[Event] = []
    cm = ContextManager(window=8_000, store=FullDisk(), event_handler=events.append)
    result = await Agent(FunctionModel(model), capabilities=[cm]).run("next", message_history=history(30))
    assert result.output == "ok"
    errors = [e.error for e in events if e.failed]
    assert errors and all(e is not None and e.endswith(": No space left on device: /data/chat.jsonl") for e in errors)


async def test_a_changed_history_the_store_could_not_archive_says_why_in_words() -> None:
    store = FullDisk()
    cm = ContextManager(window=100_000, store=store)
    agent = Agent(FunctionModel(model), capabilities=[cm])
    first = await agent.run("one")
    second = await agent.run("two", message_history=first.all_messages())
    with pytest.raises(HistoryNotSaved) as caught:  # the second answer regenerated: the store held more
        await agent.run("two, again", message_history=second.all_messages()[:2])
    assert "[Errno" not in str(caught.value) and "(No space left on device: /data/chat.jsonl)" in str(caught.value)
