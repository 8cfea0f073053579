"""What a compaction's summary request made during a run used counts in the run: its tokens and cost.

It went to the model uncounted: `result.usage` left it out, and a run went past its
`total_tokens_limit` without `UsageLimitExceeded`. It is not one of the run's `requests`, which
pydantic-ai keeps for the steps of the agent loop (`RunUsage.requests`, what `request_limit` bounds):
counted there, the summaries took steps from the caller's budget, and a conversation carried whole
(`Conversation.usage`) stopped at pydantic-ai's default `request_limit` of 50 a turn before the same
agent without the library did.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage, RunUsage, UsageLimits

from compact_agent.context import CompactionEvent, CompactionSettings, ContextManager, Event
from compact_agent.context.testing import library_request, reply_to_library_request

STEPS = 14


class Provider:
    """Reads a page `STEPS` times, then answers; counts what it was asked for, and billed."""

    def __init__(self) -> None:
        self.main = self.summaries = 0
        self.billed, self.summary_tokens = RunUsage(), 0

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        sent = sum(len(str(getattr(p, "content", ""))) for m in messages for p in m.parts)
        usage = RequestUsage(input_tokens=sent // 4 + 200, output_tokens=20)
        self.billed.incr(RunUsage(requests=1) + usage)
        if library_request(messages) == "summary":
            self.summaries += 1
            self.summary_tokens += usage.total_tokens
            reply = reply_to_library_request(messages, "Pages read so far.", usage=usage)
            assert reply is not None
            return reply
        self.main += 1
        if self.main <= STEPS:
            return ModelResponse(parts=[ToolCallPart("read", {"page": self.main})], usage=usage)
        return ModelResponse(parts=[TextPart("done")], usage=usage)


def agent_for(provider: Provider, events: list[Event]) -> Agent[None, str]:
    cm = ContextManager(window=6_000, event_handler=events.append,
                        settings=CompactionSettings(compaction_records=False))  # summaries, not records
    agent: Agent[None, str] = Agent(FunctionModel(provider), capabilities=[cm])

    @agent.tool_plain
    def read(page: int) -> str:
        """One page."""
        return f"page {page}: " + " ".join(f"line-{page}-{i}" for i in range(250))

    return agent


def run_usage(result: Any) -> RunUsage:
    usage = result.usage  # a property from pydantic-ai 2.68, a method before
    return usage if isinstance(usage, RunUsage) else usage()


async def test_the_runs_usage_counts_the_summary_requests_tokens() -> None:
    provider, events = Provider(), list[Event]()
    result = await agent_for(provider, events).run("Read the pages.")
    summaries = [e.detail["usage"] for e in events if isinstance(e, CompactionEvent) and "usage" in e.detail]
    assert provider.summaries >= 2 and len(summaries) == provider.summaries
    assert sum(s["requests"] for s in summaries) == provider.summaries  # how many: the events say
    usage = run_usage(result)
    assert usage.requests == provider.main == STEPS + 1  # the agent's steps, as pydantic-ai counts them
    assert (usage.input_tokens, usage.output_tokens) == (provider.billed.input_tokens, provider.billed.output_tokens)


async def test_a_request_limit_the_agents_steps_fit_is_not_reached_by_the_summaries() -> None:
    """The limit that holds the agent's own steps exactly holds them with the library too."""
    provider, events = Provider(), list[Event]()
    result = await agent_for(provider, events).run("Read the pages.", usage_limits=UsageLimits(request_limit=STEPS + 1))
    assert result.output == "done" and provider.summaries >= 2 and provider.main == STEPS + 1
    with pytest.raises(UsageLimitExceeded, match=r"^The next request would exceed the request_limit of 14\. "):
        await agent_for(Provider(), []).run("Read the pages.", usage_limits=UsageLimits(request_limit=STEPS))


async def test_a_token_limit_counts_the_summary_requests() -> None:
    unlimited = Provider()
    await agent_for(unlimited, []).run("Read the pages.")
    main_alone = unlimited.billed.total_tokens - unlimited.summary_tokens  # what the run's own requests take
    provider = Provider()
    with pytest.raises(UsageLimitExceeded, match="total_tokens_limit"):
        await agent_for(provider, []).run("Read the pages.", usage_limits=UsageLimits(total_tokens_limit=main_alone))
    assert provider.billed.total_tokens > main_alone
