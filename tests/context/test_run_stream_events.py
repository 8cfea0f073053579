"""The manager's events in the run's own event stream (plumbing/events.py): what the
`event_handler` is given during a run's requests is also a `ContextManagerEvent` in
`run_stream_events`, `iter`'s node streams and an `event_stream_handler`, in the order it happened
and before the response of the request it shaped; a compaction's start is a
`CompactionStartedEvent` an `@agent.on_event` listener gets before the summary request is sent.

Runs on every pydantic-ai-slim the library supports (`make compat` runs it on 2.62 too).
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterable, AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai import Agent, RunContext
from pydantic_ai.messages import (
    AgentStreamEvent,
    ModelMessage,
    ModelResponse,
    PartStartEvent,
    TextPart,
    ToolCallPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from pydantic_ai.run import AgentRunResultEvent
from pydantic_ai.usage import RequestUsage, UsageLimits

from compact_agent.context import (
    CompactionEvent,
    CompactionSettings,
    CompactionStartedEvent,
    ContextManager,
    ContextManagerEvent,
    Event,
)
from compact_agent.context.testing import library_request, reply_to_library_request

PAGES = 12
LIMITS = UsageLimits(request_limit=100)
DOC = Path(__file__).resolve().parents[2] / "docs" / "library.md"


class Reader:
    """Reads the pages one tool call at a time, streamed, then answers; answers the library's
    summary requests (not streamed), logging when each request came in."""

    def __init__(self) -> None:
        self.requests: list[str] = []  # "turn" or "summary", in the order they came
        self.read: list[int] = []  # the pages the tool returned

    def answer(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        usage = RequestUsage(input_tokens=sum(len(str(getattr(p, "content", ""))) for m in messages
                                              for p in m.parts) // 4 + 200, output_tokens=20)
        if (reply := reply_to_library_request(messages, "Pages read so far.", usage=usage)) is not None:
            self.requests.append("summary")
            return reply
        self.requests.append("turn")  # a run that streams nothing asks for its turns this way
        page = len(self.read) + 1
        if page <= PAGES:
            return ModelResponse(parts=[ToolCallPart("read_page", {"page": page}, tool_call_id=f"c{page}")],
                                 usage=usage)
        return ModelResponse(parts=[TextPart(f"read {PAGES} pages")], usage=usage)

    async def stream(self, messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
        assert library_request(messages) is None, "the library's own requests are not streamed"
        self.requests.append("turn")
        page = len(self.read) + 1
        if page <= PAGES:
            yield {0: DeltaToolCall(name="read_page", json_args=f'{{"page": {page}}}', tool_call_id=f"c{page}")}
        else:
            yield f"read {PAGES} pages"


def agent_for(reader: Reader, cm: ContextManager) -> Agent[None, str]:
    agent: Agent[None, str] = Agent(FunctionModel(reader.answer, stream_function=reader.stream), capabilities=[cm])

    @agent.tool_plain
    def read_page(page: int) -> str:
        """One page of the log."""
        reader.read.append(page)
        return f"page {page}: " + " ".join(f"event-{page}-{i} ok" for i in range(300))

    return agent


def manager(seen: list[Event]) -> ContextManager:
    # Summaries, not records: the compaction's start comes before a model request the test can see.
    return ContextManager(window=8_000, event_handler=seen.append,
                          settings=CompactionSettings(compaction_records=False))


def from_manager(events: list[Any]) -> list[Event]:
    return [e.event for e in events if isinstance(e, ContextManagerEvent)]


async def test_run_stream_events_carries_every_event_of_the_runs_requests_in_order() -> None:
    seen: list[Event] = []
    reader = Reader()
    agent = agent_for(reader, manager(seen))
    streamed: list[AgentStreamEvent | AgentRunResultEvent[str]] = []
    async with agent.run_stream_events("Read the whole log.", usage_limits=LIMITS) as events:
        async for event in events:
            streamed.append(event)
    final = streamed[-1]
    assert isinstance(final, AgentRunResultEvent) and final.result.output == f"read {PAGES} pages"
    compactions = [e for e in seen if isinstance(e, CompactionEvent)]
    assert compactions and "summary" in reader.requests  # the case the test is for
    # The very objects the handler got, every one, in the order it got them.
    assert [id(e) for e in from_manager(streamed)] == [id(e) for e in seen]
    for compaction in compactions:
        at = next(i for i, e in enumerate(streamed) if isinstance(e, ContextManagerEvent) and e.event is compaction)
        # Its start just before it (the summary request makes no event of the run's), its trigger and size.
        start = streamed[at - 1]
        assert isinstance(start, CompactionStartedEvent)
        assert (start.trigger, start.tokens_before) == (compaction.trigger, compaction.tokens_before)
        assert start.kind == "compact_agent.compaction_started"
        assert start.capability_id is not None
        # Before the response of the request it shrank: the next model event is that response's start.
        assert isinstance(next(e for e in streamed[at:] if not isinstance(e, ContextManagerEvent)), PartStartEvent)


async def test_iter_node_streams_and_an_event_stream_handler_see_them_too() -> None:
    seen_iter: list[Event] = []
    in_nodes: list[Any] = []
    agent = agent_for(Reader(), manager(seen_iter))
    async with agent.iter("Read the whole log.", usage_limits=LIMITS) as run:
        async for node in run:
            if Agent.is_model_request_node(node) or Agent.is_call_tools_node(node):
                # What the hooks emit after a response (a usage report rejected) is the next node's.
                async with node.stream(run.ctx) as stream:
                    in_nodes.extend([event async for event in stream])
    assert any(isinstance(e, CompactionEvent) for e in seen_iter)
    assert [id(e) for e in from_manager(in_nodes)] == [id(e) for e in seen_iter]

    seen_run: list[Event] = []
    handled: list[Any] = []

    async def handler(ctx: RunContext[None], events: AsyncIterable[AgentStreamEvent]) -> None:
        handled.extend([event async for event in events])

    result = await agent_for(Reader(), manager(seen_run)).run("Read the whole log.", usage_limits=LIMITS,
                                                              event_stream_handler=handler)
    assert result.output == f"read {PAGES} pages" and any(isinstance(e, CompactionEvent) for e in seen_run)
    assert [id(e) for e in from_manager(handled)] == [id(e) for e in seen_run]
    assert sum(isinstance(e, CompactionStartedEvent) for e in handled) == sum(
        isinstance(e, CompactionEvent) for e in seen_run)


async def test_an_on_event_listener_hears_of_a_compaction_before_its_summary_request() -> None:
    reader = Reader()
    agent = agent_for(reader, manager([]))
    heard: list[tuple[str, int]] = []

    @agent.on_event(CompactionStartedEvent)
    async def starting(ctx: RunContext[None], event: CompactionStartedEvent) -> None:
        heard.append((event.trigger, len(reader.requests)))

    result = await agent.run("Read the whole log.", usage_limits=LIMITS)  # no stream read: listeners still run
    assert result.output == f"read {PAGES} pages" and heard
    for trigger, requests_before in heard:
        assert trigger == "auto"
        assert reader.requests[requests_before] == "summary"  # the next request, after the listener ran


async def test_a_listener_that_raises_on_a_start_leaves_the_compaction_to_go_on(
        caplog: pytest.LogCaptureFixture) -> None:
    seen: list[Event] = []
    cm = manager(seen)
    agent = agent_for(Reader(), cm)

    @agent.on_event(CompactionStartedEvent)
    async def broken(ctx: RunContext[None], event: CompactionStartedEvent) -> None:
        raise RuntimeError("the spinner broke")

    with caplog.at_level(logging.WARNING):
        result = await agent.run("Read the whole log.", usage_limits=LIMITS)
    assert result.output == f"read {PAGES} pages"
    done = [e for e in seen if isinstance(e, CompactionEvent)]
    assert done and not any(e.failed for e in done)
    assert cm.run_stream.errors == len(done)
    assert "the spinner broke" in caplog.text


async def test_outside_a_run_nothing_waits_for_a_stream() -> None:
    """`compact_now` has no run stream: its events go to the handler alone and nothing is kept for one."""
    seen: list[Event] = []
    cm = manager(seen)
    reader = Reader()
    result = await agent_for(reader, cm).run("Read the whole log.", usage_limits=LIMITS)
    before = len(seen)
    await cm.compact_now(result.all_messages(), model=FunctionModel(reader.answer))
    assert any(isinstance(e, CompactionEvent) for e in seen[before:])
    assert not cm.run_stream.running and cm.run_stream.waiting == []


async def test_the_pages_stream_example_says_each_compaction(capsys: pytest.CaptureFixture[str]) -> None:
    """docs/library.md's `watch`, as printed, on this reader: a line as each compaction starts and one
    as it ends, with the figures the handler got."""
    (source,) = re.findall(r"^```python stream\n(.*?)^```$", DOC.read_text(encoding="utf-8"), re.S | re.M)
    namespace: dict[str, Any] = {}
    exec(compile(source, "docs/library.md", "exec"), namespace)
    seen: list[Event] = []
    output = await namespace["watch"](agent_for(Reader(), manager(seen)), "Read the whole log.")
    assert output == f"read {PAGES} pages"
    compactions = [e for e in seen if isinstance(e, CompactionEvent)]
    assert compactions
    assert capsys.readouterr().out.splitlines() == [line for e in compactions for line in (
        f"compacting ({e.trigger}) at {e.tokens_before:,} tokens",
        f"compacted ({e.strategy}): {e.tokens_before:,} -> {e.tokens_after:,} tokens")]


async def test_a_compactions_end_is_the_next_compaction_event_of_its_conversation() -> None:
    """From a compaction soon after the last, the thrash guard's `escalate` comes between the start and
    the end, where the page said the start came just before its end: a UI pairs a start with the next
    `CompactionEvent` of its conversation (docs/library.md), which this checks of every start."""
    seen: list[Event] = []
    cm = ContextManager(window=3_000, event_handler=seen.append,
                        settings=CompactionSettings(compaction_records=False, collapse_enabled=False,
                                                    thrash_requests=8))  # each compaction comes "soon"
    streamed: list[Any] = []
    async with agent_for(Reader(), cm).run_stream_events("Read the whole log.", usage_limits=LIMITS) as events:
        async for event in events:
            streamed.append(event)
    starts = [i for i, e in enumerate(streamed) if isinstance(e, CompactionStartedEvent)]
    compactions = [e for e in seen if isinstance(e, CompactionEvent)]
    assert len(starts) == len(compactions) > 1
    between = []
    for i in starts:
        start = streamed[i]
        end_at = next(j for j in range(i + 1, len(streamed)) if isinstance(streamed[j], ContextManagerEvent)
                      and isinstance(streamed[j].event, CompactionEvent)
                      and streamed[j].event.conversation_id == start.conversation_id)
        end = streamed[end_at].event
        assert (start.trigger, start.tokens_before) == (end.trigger, end.tokens_before)
        assert not any(isinstance(e, CompactionStartedEvent) for e in streamed[i + 1:end_at])
        between += [(e.event.layer, e.event.action) for e in streamed[i + 1:end_at] if isinstance(e, ContextManagerEvent)]
    assert ("thrash", "escalate") in between  # the case the page now says
    assert "of the same `conversation_id`" in DOC.read_text(encoding="utf-8")


async def test_the_page_says_watch_needs_a_model_that_streams() -> None:
    """The page's `watch` on its offline example's kind of model, a `FunctionModel` with no
    `stream_function`, stops where pydantic-ai says why: the page says so, in pydantic-ai's words."""
    (source,) = re.findall(r"^```python stream\n(.*?)^```$", DOC.read_text(encoding="utf-8"), re.S | re.M)
    namespace: dict[str, Any] = {}
    exec(compile(source, "docs/library.md", "exec"), namespace)
    reader = Reader()
    agent: Agent[None, str] = Agent(FunctionModel(reader.answer), capabilities=[manager([])])
    with pytest.raises(AssertionError) as stopped:
        await namespace["watch"](agent, "Read the whole log.")
    said = re.sub(r"\s+", " ", DOC.read_text(encoding="utf-8"))
    assert f'"{stopped.value}"' in said and "FunctionModel(fake_llm, stream_function=...)" in said
