"""A compaction's summary request made during a run counts in the run's cost, and its `cost_limit`.

pydantic-ai prices the run's own responses (genai-prices, by model and provider) into
`RunUsage.cost`, which `UsageLimits(cost_limit=...)` holds. A summary's response comes from a request
the library sends itself, and had no price: `result.usage` counted its tokens but not its cost, and a
run whose summaries took it past its `cost_limit` went on. Against a real OpenAI-compatible server
serving a model genai-prices knows (`gpt-4o-mini`).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.usage import RequestUsage, RunUsage, UsageLimits

from compact_agent.context import CompactionEvent, CompactionSettings, ContextManager, Event
from compact_agent.context.testing import library_request, reply_to_library_request
from tests.fakes.openai_server import FakeOpenAIServer

from .pages_agent import WINDOW, page_text, reading

MODEL = "gpt-4o-mini"


def price(input_tokens: int, cache_read_tokens: int, output_tokens: int) -> Decimal:
    """What genai-prices says these tokens of `MODEL` cost at OpenAI (linear in each count)."""
    usage = RequestUsage(input_tokens=input_tokens, cache_read_tokens=cache_read_tokens, output_tokens=output_tokens)
    return ModelResponse(parts=[TextPart("")], usage=usage, model_name=MODEL, provider_name="openai").cost().total_price


async def run(limits: UsageLimits, events: list[Event]) -> tuple[Any, FakeOpenAIServer]:
    with FakeOpenAIServer(reading("<summary>Pages read so far.</summary>"), window=WINDOW, model=MODEL) as server:
        provider = OpenAIProvider(base_url=server.base_url, api_key="k")
        cm = ContextManager(window=WINDOW, event_handler=events.append,
                            settings=CompactionSettings(compaction_records=False))  # summaries, not records
        agent: Agent[None, str] = Agent(OpenAIChatModel(MODEL, provider=provider), capabilities=[cm])

        @agent.tool_plain
        def read(page: int) -> str:
            """Read a page."""
            return page_text(page)

        result = await agent.run("Read every page.", usage_limits=limits)
    return result, server


def summaries_used(events: list[Event]) -> RunUsage:
    used = RunUsage()
    for e in events:
        if isinstance(e, CompactionEvent) and "usage" in e.detail:
            u = e.detail["usage"]
            used.incr(RunUsage(requests=u["requests"], input_tokens=u["input_tokens"],
                               cache_read_tokens=u["cache_read_tokens"], output_tokens=u["output_tokens"]))
    return used


async def test_the_runs_cost_counts_the_summaries() -> None:
    events: list[Event] = []
    result, _ = await run(UsageLimits(request_limit=200), events)
    usage, summaries = result.usage, summaries_used(events)
    assert summaries.requests >= 2 and summaries.output_tokens > 0
    # Every token the run counts, the summaries' among them, is priced in its cost.
    assert usage.cost == price(usage.input_tokens, usage.cache_read_tokens, usage.output_tokens)
    assert usage.cost > price(usage.input_tokens - summaries.input_tokens,
                              usage.cache_read_tokens - summaries.cache_read_tokens,
                              usage.output_tokens - summaries.output_tokens)


async def test_a_cost_limit_counts_the_summaries() -> None:
    events: list[Event] = []
    unlimited, _ = await run(UsageLimits(request_limit=200), events)
    usage, summaries = unlimited.usage, summaries_used(events)
    main_alone = price(usage.input_tokens - summaries.input_tokens, usage.cache_read_tokens - summaries.cache_read_tokens,
                       usage.output_tokens - summaries.output_tokens)  # what the run's own requests cost
    with pytest.raises(UsageLimitExceeded, match="cost_limit"):
        await run(UsageLimits(request_limit=200, cost_limit=main_alone), [])


async def test_a_summary_past_the_cost_limit_ends_the_run_before_the_steps_request() -> None:
    """The cost limit is checked after the summary, as the token limits are: the step's own request,
    which would cost more on top, is not sent. Costs as a provider (or a gateway) reports them."""
    asked: list[str] = []

    def provider(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        kind = library_request(messages) or "main"
        asked.append(kind)
        cost = Decimal("0.1") if kind == "summary" else Decimal("0.001")
        usage = RequestUsage(input_tokens=sum(len(str(getattr(p, "content", ""))) for m in messages
                                              for p in m.parts) // 4 + 200, output_tokens=20)
        usage.cost = cost
        if (reply := reply_to_library_request(messages, "Pages read so far.", usage=usage)) is not None:
            return reply
        return ModelResponse(parts=[ToolCallPart("read", {"page": len(asked)})], usage=usage)

    cm = ContextManager(window=6_000, settings=CompactionSettings(compaction_records=False))
    agent: Agent[None, str] = Agent(FunctionModel(provider), capabilities=[cm])

    @agent.tool_plain
    def read(page: int) -> str:
        """One page."""
        return f"page {page}: " + " ".join(f"line-{page}-{i}" for i in range(250))

    with pytest.raises(UsageLimitExceeded, match="cost_limit"):
        await agent.run("Read the pages.", usage_limits=UsageLimits(cost_limit=Decimal("0.05")))
    assert asked.count("summary") == 1 and asked[-1] == "summary"
