"""A second run of a conversation in progress is refused as `ConversationBusy`, naming the conversation.

It was a bare pydantic-ai `UserError`: a service answering a user's double submit with 409 Conflict had
to tell it from every other usage error by parsing its words. `ConversationBusy` is a `UserError`, so
what caught that still catches it, and carries `conversation_id`."""

from __future__ import annotations

import asyncio

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

import compact_agent.context as lib
from compact_agent.context import CompactionSettings, ContextManager, ConversationBusy
from compact_agent.context.testing import library_request, reply_to_library_request


async def test_a_double_submit_is_conversation_busy_with_its_id() -> None:
    release, waiting = asyncio.Event(), asyncio.Event()

    async def slow(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if any(isinstance(p, UserPromptPart) and p.content == "go on" for p in messages[-1].parts):
            waiting.set()
            await release.wait()
        return ModelResponse(parts=[TextPart("answer")])

    cm = ContextManager(window=64_000)
    agent = Agent(FunctionModel(slow), capabilities=[cm])
    history = (await agent.run("hello", conversation_id="chat-7")).all_messages()
    running = asyncio.create_task(agent.run("go on", message_history=history, conversation_id="chat-7"))
    await waiting.wait()
    with pytest.raises(ConversationBusy) as caught:
        await agent.run("go on", message_history=history, conversation_id="chat-7")
    assert caught.value.conversation_id == "chat-7"
    assert isinstance(caught.value, UserError)  # handlers written for the UserError still catch it
    assert "'chat-7' already has a run in progress on this ContextManager" in str(caught.value)
    release.set()
    assert (await running).output == "answer"


async def test_a_run_while_compact_now_rewrites_the_conversation_is_busy_too() -> None:
    asked, release = asyncio.Event(), asyncio.Event()

    async def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if library_request(messages) == "summary":
            asked.set()
            await release.wait()
        return reply_to_library_request(messages, "The talk so far.") or ModelResponse(parts=[TextPart("answer " * 300)])

    cm = ContextManager(window=64_000, settings=CompactionSettings(compaction_records=False))
    agent = Agent(FunctionModel(model), capabilities=[cm])
    history: list[ModelMessage] = []
    for i in range(6):
        history = (await agent.run(f"question {i} " + "words " * 300, message_history=history,
                                   conversation_id="chat-8")).all_messages()
    compacting = asyncio.ensure_future(cm.compact_now(history))
    await asked.wait()
    try:
        with pytest.raises(ConversationBusy) as caught:
            await agent.run("more", message_history=history, conversation_id="chat-8")
    finally:
        release.set()
    assert caught.value.conversation_id == "chat-8" and "(compact_now)" in str(caught.value)
    await compacting


def test_it_is_exported() -> None:
    assert "ConversationBusy" in lib.__all__ and issubclass(lib.ConversationBusy, UserError)
    assert str(ConversationBusy("c1")) == "conversation 'c1' already has a run in progress: start the next when that one returns"
