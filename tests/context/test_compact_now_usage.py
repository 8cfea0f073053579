"""`compact_now(usage=..., usage_limits=...)`: its summary requests counted where the caller says.

`compact_now` compacts between runs, so no run counts its summary request: a caller adding up what
a conversation spent (the `result.usage` of each run) left every `/compact` out, with no way to put
it in but reading the compaction event's tokens, and no limit held it. It takes a `RunUsage` as
`agent.run(usage=...)` does, and adds to it what its summary requests used (tokens, cost: not to its
`requests`, pydantic-ai's count of the agent's steps, as in a run); `usage_limits`' token and cost
limits hold for them, counted from that usage, as in a run.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage, RunUsage, UsageLimits

from compact_agent.context import CompactionEvent, ContextManager, Event
from compact_agent.context.testing import library_request, reply_to_library_request

PAGES = 6
SUMMARY = RequestUsage(input_tokens=3_000, cache_read_tokens=2_000, output_tokens=150)
SUMMARY.cost = Decimal("0.0042")  # as a provider or a gateway reports it: kept as it is


class Provider:
    def __init__(self) -> None:
        self.summaries = 0

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if library_request(messages) == "summary":
            self.summaries += 1
            reply = reply_to_library_request(messages, "Pages read so far.", usage=RequestUsage(**{
                k: getattr(SUMMARY, k) for k in ("input_tokens", "cache_read_tokens", "output_tokens", "cost")}))
            assert reply is not None
            return reply
        read = sum(isinstance(m, ModelResponse) for m in messages)
        if read < PAGES:
            return ModelResponse(parts=[ToolCallPart("read", {"page": read + 1})],
                                 usage=RequestUsage(input_tokens=100, output_tokens=10))
        return ModelResponse(parts=[TextPart("done")], usage=RequestUsage(input_tokens=100, output_tokens=10))


async def history() -> tuple[ContextManager, Provider, list[ModelMessage], list[Event]]:
    provider, events = Provider(), list[Event]()
    cm = ContextManager(window=64_000, event_handler=events.append)
    agent: Agent[None, str] = Agent(FunctionModel(provider), capabilities=[cm])

    @agent.tool_plain
    def read(page: int) -> str:
        """One page."""
        return f"page {page}: " + " ".join(f"line-{page}-{i}" for i in range(250))

    result = await agent.run("Read the pages.")
    assert not cm.compactions and provider.summaries == 0
    return cm, provider, result.all_messages(), events


async def test_the_summary_is_added_to_the_usage_given() -> None:
    cm, provider, messages, events = await history()
    usage = RunUsage(requests=3, input_tokens=500, output_tokens=40)  # what the conversation spent so far
    compacted = await cm.compact_now(messages, usage=usage)
    assert len(compacted) < len(messages) and provider.summaries == 1
    assert (usage.requests, usage.input_tokens, usage.cache_read_tokens, usage.output_tokens) == (
        3, 500 + SUMMARY.input_tokens, SUMMARY.cache_read_tokens, 40 + SUMMARY.output_tokens)
    assert usage.cost == SUMMARY.cost
    said = [e.detail["usage"] for e in events if isinstance(e, CompactionEvent)]
    assert said == [{"requests": 1, "input_tokens": SUMMARY.input_tokens,
                     "cache_read_tokens": SUMMARY.cache_read_tokens, "output_tokens": SUMMARY.output_tokens}]


async def test_usage_limits_hold_for_the_summary_and_leave_the_history_as_it_was() -> None:
    cm, provider, messages, _ = await history()
    store = cm.store
    held = list(store.messages)  # type: ignore[attr-defined]
    with pytest.raises(UsageLimitExceeded, match="total_tokens_limit of 500"):  # past it already: not sent
        await cm.compact_now(messages, usage=RunUsage(requests=3, input_tokens=600),
                             usage_limits=UsageLimits(total_tokens_limit=500))
    assert provider.summaries == 0 and not cm.compactions
    assert store.messages == held and store.archives == []  # type: ignore[attr-defined]
    # Within it: the summary is sent, and the token limit holds after it.
    with pytest.raises(UsageLimitExceeded, match="total_tokens_limit"):
        await cm.compact_now(messages, usage=RunUsage(requests=2), usage_limits=UsageLimits(
            total_tokens_limit=SUMMARY.total_tokens - 1))
    assert provider.summaries == 1 and not cm.compactions and store.messages == held  # type: ignore[attr-defined]
    # The request limit counts the agent's steps, of which a summary is none.
    compacted = await cm.compact_now(messages, usage=RunUsage(requests=3), usage_limits=UsageLimits(request_limit=3))
    assert len(compacted) < len(messages) and provider.summaries == 2


@pytest.mark.parametrize(("given", "said"), [
    ({"usage": RequestUsage()}, "compact_now: usage must be a pydantic-ai RunUsage (what the summary requests use "
                                "is added to it, as agent.run(usage=...) adds a run's), not RequestUsage"),
    ({"usage_limits": 5}, "compact_now: usage_limits must be a pydantic-ai UsageLimits, not int"),
])
async def test_a_wrong_usage_is_refused_in_one_line(given: dict[str, object], said: str) -> None:
    cm, provider, messages, _ = await history()
    with pytest.raises(TypeError) as refused:
        await cm.compact_now(messages, **given)  # type: ignore[arg-type]
    assert str(refused.value) == said and provider.summaries == 0
