"""Every event names the run it happened in and that run's agent, beside its conversation.

An application running several agents on one `ContextManager` (a researcher and a coder, each in
conversations of its own, at the same time) gave one `event_handler` events that said only their
conversation: which agent's run compacted, and which run of a conversation, could not be told.
Each event now carries the run's `run_id` (pydantic-ai's, the one the run's result and its messages
carry) and its agent's `agent_name`; what happens outside any run (`compact_now`) names none.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from pydantic_ai import Agent, RunContext
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from pydantic_ai.run import AgentRunResultEvent
from pydantic_ai.usage import RequestUsage, UsageLimits

from compact_agent.context import CompactionEvent, CompactionSettings, ContextManager, Event, NotesEvent
from compact_agent.context.testing import library_request, reply_to_library_request

PAGES = 10
LIMITS = UsageLimits(request_limit=100)


def usage_of(messages: list[ModelMessage]) -> RequestUsage:
    sent = sum(len(str(getattr(p, "content", ""))) for m in messages for p in m.parts)
    return RequestUsage(input_tokens=sent // 4 + 200, output_tokens=20)


def reader_agent(name: str, cm: ContextManager) -> Agent[None, str]:
    """An agent named `name` that reads `PAGES` pages in each run, one tool call each (streamed or
    not), then answers."""
    read_in: dict[str | None, int] = {}  # pages read, by run

    def page_of(messages: list[ModelMessage]) -> int:
        return read_in.get(messages[-1].run_id, 0) + 1  # the newest request is the run's own

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if (reply := reply_to_library_request(messages, "Pages read so far.", usage=usage_of(messages))) is not None:
            return reply
        page = page_of(messages)
        if page <= PAGES:
            return ModelResponse(parts=[ToolCallPart("read", {"page": page})], usage=usage_of(messages))
        return ModelResponse(parts=[TextPart("done")], usage=usage_of(messages))

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
        assert library_request(messages) is None
        await asyncio.sleep(0)  # the other agent's run goes on meanwhile
        page = page_of(messages)
        if page <= PAGES:
            yield {0: DeltaToolCall(name="read", json_args=f'{{"page": {page}}}')}
        else:
            yield "done"

    agent: Agent[None, str] = Agent(FunctionModel(answer, stream_function=stream), name=name, capabilities=[cm])

    @agent.tool
    async def read(ctx: RunContext[Any], page: int) -> str:
        """One page."""
        await asyncio.sleep(0)
        read_in[ctx.run_id] = read_in.get(ctx.run_id, 0) + 1
        return f"page {page}: " + " ".join(f"line-{name}-{page}-{i}" for i in range(300))

    return agent


async def run_as(how: str, agent: Agent[None, str], conversation: str) -> tuple[str, list[ModelMessage]]:
    """(run_id, all_messages) of one run of `agent` in `conversation`, driven as `how` says."""
    if how == "run":
        result = await agent.run("Read the pages.", conversation_id=conversation, usage_limits=LIMITS)
        return result.run_id, result.all_messages()
    if how == "run_stream":
        async with agent.run_stream("Read the pages.", conversation_id=conversation, usage_limits=LIMITS) as streamed:
            await streamed.get_output()
            return next(m.run_id for m in streamed.all_messages() if m.run_id), streamed.all_messages()
    if how == "run_stream_events":
        async with agent.run_stream_events("Read the pages.", conversation_id=conversation,
                                           usage_limits=LIMITS) as stream:
            ended = [e async for e in stream if isinstance(e, AgentRunResultEvent)]
        return ended[0].result.run_id, ended[0].result.all_messages()
    async with agent.iter("Read the pages.", conversation_id=conversation, usage_limits=LIMITS) as run:
        async for node in run:
            if Agent.is_model_request_node(node):
                async with node.stream(run.ctx) as events:
                    assert [event async for event in events]  # streamed to its end
        assert run.result is not None
        return run.result.run_id, run.result.all_messages()


@pytest.mark.parametrize("how", ["run", "run_stream", "iter", "run_stream_events"])
async def test_two_agents_at_once_on_one_manager_each_event_names_its_run_and_agent(how: str) -> None:
    events: list[Event] = []
    cm = ContextManager(window=6_000, event_handler=events.append,
                        settings=CompactionSettings(compaction_records=False))
    researcher, coder = reader_agent("researcher", cm), reader_agent("coder", cm)
    (r_id, r_history), (c_id, _) = await asyncio.gather(run_as(how, researcher, "research"),
                                                        run_as(how, coder, "code"))
    assert r_id != c_id
    by_conversation = {"research": (r_id, "researcher"), "code": (c_id, "coder")}
    for conversation, named in by_conversation.items():
        of_it = [e for e in events if e.conversation_id == conversation]
        assert any(isinstance(e, CompactionEvent) and e.action == "full" for e in of_it)  # the case the test is for
        assert {(e.run_id, e.agent_name) for e in of_it} == {named}
        assert all(e.to_json()["run_id"] == named[0] and e.to_json()["agent_name"] == named[1] for e in of_it)
    # A second run of the same conversation is told apart from the first by its run_id.
    events.clear()
    again = await researcher.run("And once more.", message_history=r_history, usage_limits=LIMITS)
    assert again.run_id != r_id and events
    assert {(e.conversation_id, e.run_id, e.agent_name) for e in events} == {("research", again.run_id, "researcher")}


async def test_compact_now_between_runs_names_no_run() -> None:
    events: list[Event] = []
    cm = ContextManager(window=6_000, event_handler=events.append,
                        settings=CompactionSettings(compaction_records=False))
    agent = reader_agent("researcher", cm)
    result = await agent.run("Read the pages.", conversation_id="research", usage_limits=LIMITS)
    events.clear()
    await cm.compact_now(result.all_messages(), model=agent.model)
    compactions: list[Any] = [e for e in events if isinstance(e, CompactionEvent)]
    assert compactions and all(e.conversation_id == "research" for e in compactions)
    assert {(e.run_id, e.agent_name) for e in events} == {(None, None)}


async def test_notes_written_beside_a_run_name_it_also_when_they_end_after_it() -> None:
    events: list[Event] = []
    settings = CompactionSettings(memory_enabled=True, memory_update_tokens=1, memory_update_tool_calls=1,
                                  memory_start_fraction=0.0, compaction_records=False, memory_retry_s=0.001)
    cm = ContextManager(window=6_000, event_handler=events.append, settings=settings, notes_in_background=True)
    result = await reader_agent("researcher", cm).run("Read the pages.", conversation_id="research",
                                                      usage_limits=LIMITS)
    await cm.drain()
    notes = [e for e in events if isinstance(e, NotesEvent) and e.action == "update"]
    assert notes  # the case the test is for
    assert {(e.run_id, e.agent_name) for e in notes} == {(result.run_id, "researcher")}
