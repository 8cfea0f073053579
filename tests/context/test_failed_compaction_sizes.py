"""A failed compaction's event gives the size of the request it tried to compact.

Its `tokens_before` / `tokens_after` were the size of the manager's previous request: 0 on a manager
that had sent none yet, as at the first request of every turn of a service that makes a manager per
turn (docs/library.md's stored-conversation example) and after every restart, and the previous
request's size otherwise, while the `CompactionStartedEvent` said before it the size of the request
it compacted. A log or a dashboard read "compaction failed: 0 -> 0 tokens"."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from pydantic_ai import Agent, RunContext
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from pydantic_ai.usage import RequestUsage

from compact_agent.context import (
    CompactionEvent,
    CompactionSettings,
    CompactionStartedEvent,
    ContextManager,
    Event,
    InMemoryStore,
)
from compact_agent.context.testing import library_request


def provider(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Answers the agent's requests, looking a topic up when the newest request asks; its summaries fail."""
    sent = sum(len(str(getattr(p, "content", ""))) for m in messages for p in m.parts)
    usage = RequestUsage(input_tokens=sent // 4 + 200, output_tokens=20)
    if library_request(messages):
        raise ConnectionError("the summary endpoint is down")
    if "look up" in str(getattr(messages[-1].parts[-1], "content", "")):
        return ModelResponse(parts=[ToolCallPart("lookup", {"topic": "tides"})], usage=usage)
    if isinstance(messages[-1].parts[-1], ToolReturnPart):
        return ModelResponse(parts=[TextPart("looked it up")], usage=usage)
    return ModelResponse(parts=[TextPart("ok")], usage=usage)


async def streamed(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
    """The same answers streamed (an `on_event` listener has pydantic-ai stream the agent's requests)."""
    part = provider(messages, info).parts[0]
    if isinstance(part, ToolCallPart):
        yield {0: DeltaToolCall(name=part.tool_name, json_args=json.dumps(part.args), tool_call_id=part.tool_call_id)}
    else:
        assert isinstance(part, TextPart)
        yield part.content


def turn_agent(store: InMemoryStore, seen: list[Event], started: list[int]) -> Agent[None, str]:
    """One turn's agent: a new manager on the conversation's store, summaries asked of the model."""
    cm = ContextManager(window=5_000, store=store, event_handler=seen.append,
                        settings=CompactionSettings(compaction_records=False))
    agent = Agent(FunctionModel(provider, stream_function=streamed), capabilities=[cm])

    @agent.tool_plain
    def lookup(topic: str) -> str:
        """Look a topic up."""
        return f"{topic}: " + " ".join(f"fact-{i} holds" for i in range(500))

    @agent.on_event(CompactionStartedEvent)
    async def starting(ctx: RunContext[None], event: CompactionStartedEvent) -> None:
        started.append(event.tokens_before)

    return agent


async def test_a_failed_compaction_says_the_size_of_the_request_it_compacted() -> None:
    store = InMemoryStore()
    failed: list[tuple[int, int, int]] = []  # (started's tokens_before, failed's before, failed's after)
    for i in range(16):
        seen: list[Event] = []
        started: list[int] = []
        prompt = f"look up the tides, {i}" if i % 2 else f"say ok, {i}"
        await turn_agent(store, seen, started).run(prompt, message_history=store.load_messages())
        ends = [e for e in seen if isinstance(e, CompactionEvent)]
        assert len(ends) == len(started)
        failed += [(s, e.tokens_before, e.tokens_after) for s, e in zip(started, ends, strict=True) if e.failed]
    assert len(failed) >= 3  # at a turn's first request (the manager new) and inside a turn's tool loop
    for size, before, after in failed:
        assert size > 1_000
        assert before == after == size
