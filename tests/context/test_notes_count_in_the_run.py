"""What the session notes' requests use counts in the run that waits for them, as its summaries' does.

The library's notes (`CompactionSettings(memory_enabled=True)`) are written by the run's model
beside the run, which waits for them before it returns. Their requests were counted nowhere: a run
with notes on sent requests whose tokens `result.usage` left out. Their tokens and cost are added to
the run's usage now; they are not among its `requests` (pydantic-ai's count of the agent's steps,
what `request_limit` bounds), so a limit the agent's steps fit leaves room for them. Not counted:
notes a run does not wait for (`notes_in_background=True`, they may end after it), and notes wired
in (`Internals.memory`: the terminal agent counts its own).
"""

from __future__ import annotations

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage, RunUsage, UsageLimits

from compact_agent.context import CompactionSettings, ContextManager, Event, SessionMemory
from compact_agent.context.testing import library_request, reply_to_library_request
from compact_agent.context.wiring import Internals

STEPS = 12
SETTINGS = CompactionSettings(memory_enabled=True, memory_update_tokens=1, memory_update_tool_calls=1,
                              memory_start_fraction=0.0, compaction_records=False, memory_retry_s=0.001)


class Provider:
    """Reads a page `STEPS` times, then answers; counts what it was asked for, and billed."""

    def __init__(self) -> None:
        self.asked: dict[str, int] = {"main": 0, "summary": 0, "notes": 0}
        self.billed = RunUsage()

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        sent = sum(len(str(getattr(p, "content", ""))) for m in messages for p in m.parts)
        usage = RequestUsage(input_tokens=sent // 4 + 200, output_tokens=20)
        self.billed.incr(RunUsage(requests=1) + usage)
        kind = library_request(messages) or "main"
        self.asked[kind] += 1
        if (reply := reply_to_library_request(messages, "Pages read so far.", usage=usage)) is not None:
            return reply
        if self.asked["main"] <= STEPS:
            return ModelResponse(parts=[ToolCallPart("read", {"page": self.asked["main"]})], usage=usage)
        return ModelResponse(parts=[TextPart("done")], usage=usage)


def agent_for(provider: Provider, cm: ContextManager) -> Agent[None, str]:
    agent: Agent[None, str] = Agent(FunctionModel(provider), capabilities=[cm])

    @agent.tool_plain
    def read(page: int) -> str:
        """One page."""
        return f"page {page}: " + " ".join(f"line-{page}-{i}" for i in range(250))

    return agent


def notes_said(events: list[Event]) -> RunUsage:
    """What the notes updates' events say their requests used (`detail["usage"]`)."""
    said = RunUsage()
    for e in events:
        if e.layer == "memory" and e.action == "update":
            u = e.detail["usage"]
            said.incr(RunUsage(requests=u["requests"], input_tokens=u["input_tokens"], output_tokens=u["output_tokens"]))
    return said


async def test_the_runs_usage_counts_the_notes_requests() -> None:
    provider, events = Provider(), list[Event]()
    cm = ContextManager(window=8_000, settings=SETTINGS, event_handler=events.append)
    result = await agent_for(provider, cm).run("Read the pages.")
    assert result.output == "done" and provider.asked["notes"] >= 2
    usage = result.usage
    assert usage.requests == provider.asked["main"] == STEPS + 1  # the agent's steps
    assert (usage.input_tokens, usage.output_tokens) == (provider.billed.input_tokens, provider.billed.output_tokens)
    assert notes_said(events).requests == provider.asked["notes"]  # how many: their events say


async def test_a_request_limit_the_agents_steps_fit_leaves_room_for_the_notes() -> None:
    provider, events = Provider(), list[Event]()
    cm = ContextManager(window=8_000, settings=SETTINGS, event_handler=events.append)
    result = await agent_for(provider, cm).run("Read the pages.", usage_limits=UsageLimits(request_limit=STEPS + 1))
    assert result.output == "done" and provider.asked["notes"] >= 2 and provider.asked["main"] == STEPS + 1
    assert not [e for e in events if e.layer == "memory" and e.action == "failed"]
    with pytest.raises(UsageLimitExceeded, match=r"^The next request would exceed the request_limit of 12\. "):
        await agent_for(Provider(), ContextManager(window=8_000, settings=SETTINGS)).run(
            "Read the pages.", usage_limits=UsageLimits(request_limit=STEPS))


@pytest.mark.parametrize("how", ["in the background", "wired in"])
async def test_notes_a_run_does_not_wait_for_or_wired_in_are_not_the_runs(how: str) -> None:
    provider, events = Provider(), list[Event]()
    if how == "in the background":
        cm = ContextManager(window=8_000, settings=SETTINGS, notes_in_background=True, event_handler=events.append)
    else:
        notes = SessionMemory(None, SETTINGS, model=FunctionModel(provider))  # as the terminal agent wires its own
        cm = ContextManager.wired(Internals(memory=notes), window=8_000, settings=SETTINGS)
    result = await agent_for(provider, cm).run("Read the pages.")
    await cm.drain()
    assert provider.asked["notes"] >= 1
    assert result.usage.requests == provider.asked["main"]
    if how == "in the background":  # what they used is said all the same, by their events
        assert notes_said(events).requests == provider.asked["notes"]
        assert notes_said(events).total_tokens + result.usage.total_tokens == provider.billed.total_tokens


async def test_notes_at_the_runs_end_are_sent_with_the_request_limit_used_up() -> None:
    """Notes updated at the run's end (its answer), in a run that used its `request_limit` up to that
    answer: sent (they were refused as past the limit, a failed update), their tokens counted."""
    at_the_end = CompactionSettings(memory_enabled=True, memory_update_tokens=1, memory_update_tool_calls=1_000,
                                    memory_start_fraction=0.0)
    provider, events = Provider(), list[Event]()
    cm = ContextManager(window=64_000, settings=at_the_end, event_handler=events.append)
    result = await agent_for(provider, cm).run("Read the pages.", usage_limits=UsageLimits(request_limit=STEPS + 1))
    assert result.output == "done" and not cm.compactions and provider.asked["notes"] == 1
    assert result.usage.requests == STEPS + 1 and result.usage.total_tokens == provider.billed.total_tokens
    assert not [e for e in events if e.layer == "memory" and e.action == "failed"]
