"""A run of a conversation started while `compact_now` of it waits for its summary is refused, and
so is a second `compact_now`: the run used to go ahead, save its turn, and then see the store
rewritten with the compacted history that lacked it (a restart from the store lost the turn);
two at once both paid for a summary and the store kept whichever came last."""

from __future__ import annotations

import asyncio

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import CompactionError, CompactionSettings, ContextManager, InMemoryStore
from compact_agent.context.testing import library_request, reply_to_library_request


def summary_gate() -> tuple[FunctionModel, asyncio.Event, asyncio.Event]:
    """A model that answers at once, and holds each summary until `release` is set."""
    asked, release = asyncio.Event(), asyncio.Event()

    async def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if library_request(messages) == "summary":
            asked.set()
            await release.wait()
        reply = reply_to_library_request(messages, "The talk so far.")
        return reply or ModelResponse(parts=[TextPart("answer " * 300)])

    return FunctionModel(model), asked, release


async def conversation(cm: ContextManager, model: FunctionModel) -> tuple[Agent[None, str], list[ModelMessage]]:
    agent = Agent(model, capabilities=[cm])
    history: list[ModelMessage] = []
    for i in range(6):
        history = (await agent.run(f"question {i} " + "words " * 300, message_history=history)).all_messages()
    return agent, history


async def test_a_run_while_compact_now_waits_for_its_summary_is_refused() -> None:
    model, asked, release = summary_gate()
    cm = ContextManager(window=64_000, settings=CompactionSettings(compaction_records=False))
    agent, history = await conversation(cm, model)
    compacting = asyncio.ensure_future(cm.compact_now(history))
    await asked.wait()
    try:
        with pytest.raises(UserError) as caught:
            await agent.run("one more", message_history=history)
    finally:
        release.set()
    assert "is being compacted (compact_now)" in str(caught.value) and "\n" not in str(caught.value)
    compacted = await compacting
    store = cm.store
    assert isinstance(store, InMemoryStore) and store.messages == compacted
    after = await agent.run("one more", message_history=compacted)  # once it returned, runs go on
    assert store.messages == after.all_messages()


async def test_a_second_compact_now_of_the_conversation_at_once_is_refused() -> None:
    model, asked, release = summary_gate()
    cm = ContextManager(window=64_000, settings=CompactionSettings(compaction_records=False))
    _, history = await conversation(cm, model)
    first = asyncio.ensure_future(cm.compact_now(history))
    await asked.wait()
    second = asyncio.ensure_future(cm.compact_now(history))
    for _ in range(100):  # every chance for it to get as far as its own summary request
        await asyncio.sleep(0)
    refused = second.done() and second.exception()
    release.set()
    compacted = await first
    await asyncio.gather(second, return_exceptions=True)
    assert isinstance(refused, CompactionError) and "is being compacted by another compact_now" in str(refused)
    assert len(cm.compactions) == 1 and cm.store.messages == compacted  # type: ignore[attr-defined]
