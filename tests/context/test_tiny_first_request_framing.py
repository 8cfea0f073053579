"""A request under `TINY_REQUEST` sets no ratio (its size is mostly the chat's framing), but what
the provider counted beyond its estimate is carried by every later request: until a larger report
sets a ratio, it is the fixed part. Without it a 300-token window's first request (191 tokens, an
estimated 163) taught nothing, the second was judged by characters/4 (277, under the 294 the 2%
margin leaves) and went out at 309, over the window: refused by a server that checks it. And a
request that the last-resort shrink leaves under the window but within the estimate's margin of
it was sent too: it is refused up front (`WindowTooSmallError`)."""

from __future__ import annotations

import pytest
from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from compact_agent.context import ContextManager, WindowTooSmallError
from compact_agent.context.plumbing.tokens import Calibration
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply


def test_a_tiny_reports_excess_is_the_fixed_part_until_a_ratio_is_learned() -> None:
    c = Calibration()
    assert c.observe(191, 163)
    assert c.ratio == 1.0 and c.fixed == 28
    assert c.whole(277) == 305  # the second request of the trial, as the provider counts it: over 294
    assert c.unseen() == 28  # and so in the manager's overhead: every fit counts it
    assert c.observe(1_500, 1_000)  # a request that sets a ratio: one report, one ratio, as before
    assert c.fixed == 0 and c.ratio == 1.5


def test_the_fixed_part_from_a_tiny_report_is_bounded_by_its_estimate() -> None:
    c = Calibration()
    assert c.observe(51, 5)  # a stand-in's guess of a 5-token request: at most 5 more, not 46
    assert c.fixed == 5
    c = Calibration()
    assert c.observe(100, 120)  # counted less: no fixed part below nothing
    assert c.fixed == 0


async def test_a_300_token_window_sends_no_request_over_it() -> None:
    steps = [0]

    def responder(req: ChatRequest) -> Reply:
        steps[0] += 1
        if steps[0] <= 5:
            return Reply.tools([("search", {"query": f"q{steps[0]}"})])
        return Reply.text("done")

    with FakeOpenAIServer(responder, window=300) as server:
        model = OpenAIChatModel("fake-model", provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
        cm = ContextManager(window=300)
        agent: Agent[None, str] = Agent(model, capabilities=[cm], instructions="You are a helpful agent. " * 20)

        @agent.tool_plain
        def search(query: str) -> str:
            """Search."""
            return f"results for {query}: " + " ".join(f"hit-{i}" for i in range(300))

        result = await agent.run("hi")
    assert result.output == "done"
    assert server.rejected == []
    sizes = [q.prompt_tokens for q in server.requests]
    assert sizes[0] < 256 and len(sizes) == 6 and max(sizes) <= 300, sizes


async def test_a_request_that_fits_only_within_the_estimates_margin_is_refused_before_it_is_sent() -> None:
    """270 tokens: shrunk as far as it goes the request was estimated at 268, under the window but
    over the 265 its 2% margin leaves, and was sent (counted 272, refused by the server). It is
    refused up front, the margin named, nothing sent after the first request."""
    steps = [0]

    def responder(req: ChatRequest) -> Reply:
        steps[0] += 1
        return Reply.tools([("search", {"query": f"q{steps[0]}"})]) if steps[0] <= 5 else Reply.text("done")

    with FakeOpenAIServer(responder, window=270) as server:
        model = OpenAIChatModel("fake-model", provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
        agent: Agent[None, str] = Agent(model, capabilities=[ContextManager(window=270)],
                                        instructions="You are a helpful agent. " * 20)

        @agent.tool_plain
        def search(query: str) -> str:
            """Search."""
            return f"results for {query}: " + " ".join(f"hit-{i}" for i in range(300))

        with pytest.raises(WindowTooSmallError) as caught:
            await agent.run("hi")
    assert len(server.requests) == 1 and server.rejected == []
    message = str(caught.value)
    assert "\n" not in message
    assert "even shrunk as far as it goes, but the context window is 270 less the 5 kept free for the " \
           "estimate's error (265) (" in message
