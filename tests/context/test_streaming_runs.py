"""Streaming runs (`run_stream`, `run_stream_events`, `iter` streaming each request) go through the
capability's hooks as `run` does: against a real OpenAI-compatible server whose window is smaller
than the one given, a streamed request it refuses as too long is compacted and sent again, and the
window is learned, with every tool call's result sent beside it (the server refuses any other)."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.run import AgentRunResultEvent
from pydantic_ai.usage import UsageLimits

from compact_agent.context import ContextManager, LearnedWindow, Prices
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
