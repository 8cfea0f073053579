"""A compaction the run's `UsageLimits` stops has its end said, as every compaction that starts does.

A summary request made in a run counts toward the run's token and cost limits (compaction/in_run.py;
not its `request_limit`, which counts the agent's steps): a token limit it takes the run past stops
the compaction once it is answered. The run ends with pydantic-ai's `UsageLimitExceeded`, as
before; but the compaction's start had been said (an
`@agent.on_event(CompactionStartedEvent)` listener, the host's `on_compact_start`), and no
`CompactionEvent` ever ended it: a UI showing "compacting..." waited for good. It now ends as any
compaction that did not happen, a `compact` / `failed` event whose error begins "usage limit:",
not counted toward the circuit breaker (the run's limit stopped it, nothing of its own failed).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from pydantic_ai import Agent, RunContext
from pydantic_ai.capabilities import Hooks
from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from pydantic_ai.usage import RequestUsage, UsageLimits

from compact_agent.context import CompactionSettings, CompactionStartedEvent, ContextManager, Event
from compact_agent.context.testing import library_request, reply_to_library_request


class Provider:
    """Reads a page per step, 30 steps, then answers (streamed, as a run an `on_event` listener watches
    asks); summarises when asked. Logs each request by kind, and what each summary used."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.summary_tokens: dict[int, int] = {}  # by its index in `sent`

    def summarise(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert library_request(messages) == "summary"
        sent = sum(len(str(getattr(p, "content", ""))) for m in messages for p in m.parts)
        usage = RequestUsage(input_tokens=sent // 4 + 150, output_tokens=20)
        self.summary_tokens[len(self.sent)] = usage.input_tokens + usage.output_tokens
        self.sent.append("summary")
        reply = reply_to_library_request(messages, "Pages read so far.", usage=usage)
        assert reply is not None
        return reply

    async def turn(self, messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
        self.sent.append("turn")
        page = self.sent.count("turn")
        if page > 30:
            yield "done"
            return
        yield {0: DeltaToolCall(name="read", json_args=f'{{"page": {page}}}', tool_call_id=f"c{page}")}


async def run(limits: UsageLimits | None) -> tuple[Provider, list[Event], int, ContextManager, str, list[int]]:
    """The run under `limits`: the provider (what it was sent), the handler's events, the starts a
    listener heard, the manager, the error the run ended with ("" for none), and the run's total
    tokens after each of its turns."""
    provider, events, starts, totals = Provider(), list[Event](), list[str](), list[int]()
    cm = ContextManager(window=8_000, event_handler=events.append,
                        settings=CompactionSettings(compaction_records=False))

    async def counted(ctx: RunContext[None], *, request_context: object, response: ModelResponse) -> ModelResponse:
        totals.append(ctx.usage.total_tokens)
        return response

    agent: Agent[None, str] = Agent(FunctionModel(provider.summarise, stream_function=provider.turn),
                                    capabilities=[cm, Hooks(after_model_request=counted)])

    @agent.tool_plain
    def read(page: int) -> str:
        """One page."""
        return f"page {page}: " + " ".join(f"event-{page}-{i} ok" for i in range(300))

    @agent.on_event(CompactionStartedEvent)
    async def started(ctx: RunContext[None], event: CompactionStartedEvent) -> None:
        starts.append(event.trigger)

    try:
        await agent.run("Read the log.", usage_limits=limits)
    except UsageLimitExceeded as e:
        return provider, events, len(starts), cm, str(e), totals
    return provider, events, len(starts), cm, "", totals


def ends(events: list[Event]) -> list[Event]:
    """The compactions' ends: done, failed or blocked."""
    return [e for e in events if e.layer == "compact"]


async def test_a_request_limit_stops_the_run_at_the_agents_step_not_at_the_summary() -> None:
    whole, *_ = await run(None)
    first = whole.sent.index("summary")  # the steps before it
    made, events, starts, cm, error, _ = await run(UsageLimits(request_limit=first + 1))
    assert made.sent == whole.sent[:first + 2]  # the summary, and the step after it: the limit's last
    assert error.startswith(f"The next request would exceed the request_limit of {first + 1}. ")
    assert starts == len(ends(events)) == 1 and ends(events)[0].action == "full"
    assert cm.failures == 0 and not cm.breaker_open


async def test_a_token_limit_a_summary_takes_the_run_past_ends_the_compaction_it_stops() -> None:
    whole, events, starts, _, _, totals = await run(None)
    summaries = [i for i, kind in enumerate(whole.sent) if kind == "summary"]
    assert len(summaries) >= 2 and starts == len(ends(events)) == len(summaries)
    # A total-token limit the second summary takes the run past, the turns before it within it:
    # that compaction stops once its request is answered and counted.
    turns = whole.sent[:summaries[1]].count("turn")
    limit = totals[turns - 1] + whole.summary_tokens[summaries[1]] - 1
    made, events, starts, cm, error, _ = await run(UsageLimits(total_tokens_limit=limit))
    assert made.sent == whole.sent[:summaries[1] + 1]
    assert error.startswith(f"Exceeded the total_tokens_limit of {limit} ")
    assert starts == 2 and [e.action for e in ends(events)] == ["full", "failed"]
    assert ends(events)[1].detail["error"].startswith("usage limit: Exceeded the total_tokens_limit of")
    assert cm.failures == 0
