"""A conversation with something in progress on its `ContextManager`, held until the test releases
it, for the tests of what may start meanwhile: a run waiting at its model request (`turn_held`),
or `compact_now` waiting for its summary (`compaction_held`). FunctionModel, no server: the order
of events is what these tests check."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from pydantic_ai import Agent, AgentRunResult
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import CompactionSettings, ContextManager
from compact_agent.context.testing import library_request, reply_to_library_request


@dataclass
class TurnHeld:
    agent: Agent[None, str]
    history: list[ModelMessage]
    """The conversation after its first turn ("hello", answered)."""
    running: asyncio.Task[AgentRunResult[str]]
    """The run of "go on" on that history, at its model request until `release` is set."""
    release: asyncio.Event


async def turn_held(conversation_id: str | None = None) -> TurnHeld:
    """An agent with a ContextManager (64K window) whose model answers "answer" at once to anything
    but "go on", whose answer it holds until released: "hello" answered, then "go on" running."""
    release, waiting = asyncio.Event(), asyncio.Event()

    async def slow(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if any(isinstance(p, UserPromptPart) and p.content == "go on" for p in messages[-1].parts):
            waiting.set()
            await release.wait()
        return ModelResponse(parts=[TextPart("answer")])

    agent = Agent(FunctionModel(slow), capabilities=[ContextManager(window=64_000)])
    history = (await agent.run("hello", conversation_id=conversation_id)).all_messages()
    running = asyncio.create_task(agent.run("go on", message_history=history, conversation_id=conversation_id))
    await waiting.wait()  # the run is at its model request
    return TurnHeld(agent, history, running, release)


@dataclass
class CompactionHeld:
    cm: ContextManager
    agent: Agent[None, str]
    history: list[ModelMessage]
    """Six turns of ~300 words each."""
    compacting: asyncio.Future[list[ModelMessage]]
    """`cm.compact_now(history)`, its summary request held until `release` is set."""
    release: asyncio.Event


async def compaction_held(conversation_id: str | None = None) -> CompactionHeld:
    """A conversation of six long turns on a ContextManager (64K window, compactions summaries),
    its model answering at once all but a summary request, which it holds until released; then
    `compact_now` of it, waiting for its summary."""
    asked, release = asyncio.Event(), asyncio.Event()

    async def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if library_request(messages) == "summary":
            asked.set()
            await release.wait()
        reply = reply_to_library_request(messages, "The talk so far.")
        return reply or ModelResponse(parts=[TextPart("answer " * 300)])

    cm = ContextManager(window=64_000, settings=CompactionSettings(compaction_records=False))
    agent = Agent(FunctionModel(model), capabilities=[cm])
    history: list[ModelMessage] = []
    for i in range(6):
        history = (await agent.run(f"question {i} " + "words " * 300, message_history=history,
                                   conversation_id=conversation_id)).all_messages()
    compacting = asyncio.ensure_future(cm.compact_now(history))
    await asked.wait()
    return CompactionHeld(cm, agent, history, compacting, release)
