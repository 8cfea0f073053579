"""A conversation past `max_conversations` whose notes are being written in the background is kept
until they are done, and `cm.drain()` waits for them: its notes task used to be left running past
the drain, and so past the event loop's end, that the docs say drain() guards."""

from __future__ import annotations

import asyncio

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo

from compact_agent.context import CompactionSettings, ContextManager
from compact_agent.context.compaction.notes import NOTES_MARK

from .test_library import FakeProvider, fetch_agent

# Notes from the first request on, updated only when the model stops to answer (the run's end).
NOTES_AT_THE_END = CompactionSettings(memory_enabled=True, memory_start_fraction=0.0,
                                      memory_update_tool_calls=1_000, memory_update_tokens=1_000)


def notes_tasks() -> list[asyncio.Task[object]]:
    return [t for t in asyncio.all_tasks() if t.get_name() == "session-notes" and not t.done()]


async def test_drain_waits_for_the_notes_of_a_conversation_no_longer_kept() -> None:
    gate = asyncio.Event()

    async def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        provider = FakeProvider(3, window=64_000)
        last = str(messages[-1].parts[-1].content)  # type: ignore[union-attr]
        if NOTES_MARK in last and "conversation b" in str(messages):
            await gate.wait()  # b's notes are still being written when c arrives and b is let go
        provider.done = sum(1 for m in messages for p in m.parts if p.part_kind == "tool-return")
        return provider(messages, info)

    cm = ContextManager(window=64_000, notes_in_background=True, max_conversations=2, settings=NOTES_AT_THE_END)
    agent, _ = fetch_agent(model, cm)
    for key in ("a", "b", "c"):
        await agent.run(f"conversation {key}", conversation_id=key)
    assert len(notes_tasks()) == 1  # b kept, its notes in flight; c, idle at its end, let go instead
    assert cm.conversation("b") is not None and cm.conversation("c") is None
    drain = asyncio.ensure_future(cm.drain())
    for _ in range(100):  # every chance for drain() to return early, if it did not wait
        await asyncio.sleep(0)
    waited = not drain.done()
    gate.set()
    await drain
    assert waited and notes_tasks() == []


async def test_a_conversation_past_the_limit_is_drained() -> None:
    """With `max_conversations=1` every other conversation was let go as its run started: its notes,
    started at the run's end, were out of drain()'s reach. It is kept until they are done."""
    gate = asyncio.Event()

    async def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        provider = FakeProvider(3, window=64_000)
        if NOTES_MARK in str(messages[-1].parts[-1].content) and "conversation other" in str(messages):  # type: ignore[union-attr]
            await gate.wait()
        provider.done = sum(1 for m in messages for p in m.parts if p.part_kind == "tool-return")
        return provider(messages, info)

    cm = ContextManager(window=64_000, notes_in_background=True, max_conversations=1, settings=NOTES_AT_THE_END)
    agent, _ = fetch_agent(model, cm)
    await agent.run("conversation first", conversation_id="first")  # the manager's own state
    await agent.run("conversation other", conversation_id="other")
    assert cm.conversation("other") is not None and len(notes_tasks()) == 1
    drain = asyncio.ensure_future(cm.drain())
    for _ in range(100):
        await asyncio.sleep(0)
    waited = not drain.done()
    gate.set()
    await drain
    assert waited and notes_tasks() == []
    assert cm.conversation("other") is None
