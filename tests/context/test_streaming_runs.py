"""Streaming runs (`run_stream`, `run_stream_events`, `iter` streaming each request) go through the
capability's hooks as `run` does: against a real OpenAI-compatible server whose window is smaller
than the one given, a streamed request it refuses as too long is compacted and sent again, and the
window is learned, with every tool call's result sent beside it (the server refuses any other). And
a conversation driven by any of them compacts as one driven by `run` does, at the same requests, and
tells its event handler and its result alike."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.run import AgentRunResultEvent
from pydantic_ai.usage import UsageLimits

from compact_agent.context import CompactionEvent, ContextManager, Event, LearnedWindow, Prices
from tests.fakes import ChatRequest, FakeOpenAIServer, Reply, tool_results

PAGES = 30
LIMITS = UsageLimits(request_limit=300)


def reader(req: ChatRequest) -> Reply:
    """Reads the pages one by one, each result ~1,900 tokens: 30 of them are far over 12K."""
    results = tool_results(req)
    read = int(results[-1]["content"].split(":")[0].split()[-1]) if results else 0
    if read < PAGES:
        return Reply.tools([("read", {"page": read + 1})])
    return Reply.text(f"read {read} pages")


@pytest.mark.parametrize("how", ["run_stream", "run_stream_events", "iter"])
async def test_a_streamed_request_refused_as_too_long_is_compacted_and_sent_again(
        how: Literal["run_stream", "run_stream_events", "iter"]) -> None:
    with FakeOpenAIServer(reader, window=12_000) as server:
        cm = ContextManager(window=64_000, max_output=2_000, prices=Prices(known=False))
        model = OpenAIChatModel("fake-model", provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
        agent: Agent[None, str] = Agent(model, capabilities=[cm])

        @agent.tool_plain
        def read(page: int) -> str:
            """One page."""
            return f"page {page}: " + "word " * 1_500

        output = ""
        async with agent:
            if how == "run_stream":
                async with agent.run_stream("Read every page.", usage_limits=LIMITS) as streamed:
                    output = await streamed.get_output()
            elif how == "run_stream_events":
                async with agent.run_stream_events("Read every page.", usage_limits=LIMITS) as events:
                    async for event in events:
                        if isinstance(event, AgentRunResultEvent):
                            output = event.result.output
            else:
                async with agent.iter("Read every page.", usage_limits=LIMITS) as run:
                    async for node in run:
                        if Agent.is_model_request_node(node):
                            async with node.stream(run.ctx) as stream:
                                _ = [event async for event in stream]  # the request runs as it is read
                assert run.result is not None
                output = run.result.output
    assert output == f"read {PAGES} pages"
    assert cm.window_learned == LearnedWindow(window=12_000, given=64_000) and cm.compactions
    assert [(status, body["error"]["code"]) for _, status, body in server.rejected] == [
        (400, "context_length_exceeded")]


def eight_pages(req: ChatRequest) -> Reply:
    """'read' asks for eight pages at once, then answers; a summary request is answered as one."""
    last = req.messages[-1]
    if "<summary>" in str(last.get("content")):
        return Reply.text("<summary>Pages read so far.</summary>")
    if last["role"] == "user" and last.get("content") == "read":
        return Reply.tools([("read", {"page": i}) for i in range(8)])
    return Reply.text("ok")


Driver = Literal["run", "run_stream_events", "iter", "iter streaming", "run_stream"]


async def turns(how: Driver) -> tuple[list[tuple[str, str, int, int]], list[tuple[bool, bool]], list[object]]:
    """A five-turn conversation driven by `how`: the compactions' events as the handler saw them,
    per turn whether it compacted and whether its result's `new_messages()` was the whole (compacted)
    history, and what the requests the server received and the final history say."""
    seen: list[Event] = []
    per_turn: list[tuple[bool, bool]] = []
    with FakeOpenAIServer(eight_pages, window=8_000) as server:
        cm = ContextManager(window=8_000, event_handler=seen.append)
        model = OpenAIChatModel("fake-model", provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
        agent: Agent[None, str] = Agent(model, capabilities=[cm])

        @agent.tool_plain
        def read(page: int) -> str:
            """One page."""
            return f"page {page}: " + " ".join(f"w{page}x{i}" for i in range(300))

        history: list[ModelMessage] = []
        for prompt in ["read", "read", "hello", "read", "hi"]:
            before = len(cm.compactions)
            result: Any = None
            if how == "run":
                result = await agent.run(prompt, message_history=history)
            elif how == "run_stream_events":
                async with agent.run_stream_events(prompt, message_history=history) as events:
                    async for event in events:
                        if isinstance(event, AgentRunResultEvent):
                            result = event.result
            elif how == "run_stream":
                async with agent.run_stream(prompt, message_history=history) as streamed:
                    await streamed.get_output()
                result = streamed
            else:
                async with agent.iter(prompt, message_history=history) as run:
                    async for node in run:
                        if how == "iter streaming" and Agent.is_model_request_node(node):
                            async with node.stream(run.ctx) as stream:
                                _ = [event async for event in stream]
                result = run.result
            history = result.all_messages()
            per_turn.append((len(cm.compactions) > before, result.new_messages() == history))
        sent = [[(m["role"], m.get("content"), m.get("tool_calls")) for m in r.messages] for r in server.requests]
    compactions = [(e.action, e.strategy, e.tokens_before, e.tokens_after) for e in seen if isinstance(e, CompactionEvent)]
    said = [(m["kind"], [{k: v for k, v in p.items() if k in ("part_kind", "content", "tool_name", "args",
                                                                "tool_call_id", "outcome")} for p in m["parts"]])
            for m in ModelMessagesTypeAdapter.dump_python(history, mode="json")]
    return compactions, per_turn, [sent, said]


@pytest.mark.parametrize("how", ["run_stream_events", "iter", "iter streaming", "run_stream"])
async def test_a_streamed_run_compacts_as_run_does_and_says_so_alike(how: Driver) -> None:
    """Compaction runs in the capability's hooks, whatever drives the run: the same compactions at the
    same requests, reported to the event handler alike, the same requests sent. A run whose last
    request compacted returns the compacted history as its `new_messages()` from `run`, `iter` and the
    result `run_stream_events` ends with; `run_stream`'s result is made before the capability's
    `after_run`, and returns [] there (docs/library.md says so)."""
    compactions, per_turn, said = await turns("run")
    assert compactions and sum(compacted for compacted, _ in per_turn) >= 2  # the case the test is for
    assert all(whole for compacted, whole in per_turn if compacted)
    streamed, streamed_turns, streamed_said = await turns(how)
    assert streamed == compactions
    assert [c for c, _ in streamed_turns] == [c for c, _ in per_turn]
    assert streamed_said[0] == said[0]  # the requests the server got
    assert streamed_said[1] == said[1]  # the history the conversation goes on from
    if how != "run_stream":
        assert streamed_turns == per_turn
    else:
        assert not any(whole for compacted, whole in streamed_turns if compacted)
