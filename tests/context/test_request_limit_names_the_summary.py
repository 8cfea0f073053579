"""A run's `request_limit` reached because a summary request counted toward it says so.

A compaction's summary request made during a run is one of the run's requests (`result.usage`
counts it, and the run's `UsageLimits` hold for it: compaction/in_run.py), as pydantic-ai counts
the requests of an agent a tool delegates to with `usage=ctx.usage`. What a user saw was
pydantic-ai's own line, "The next request would exceed the request_limit of 15", from a run whose
agent had made 14 requests: one request early, and nothing said of the summary that took the
fifteenth. The error now names it: the one raised before a summary the limit leaves no room for,
and pydantic-ai's own at a later step, once a summary was counted. Still a `UsageLimitExceeded`.
"""

from __future__ import annotations

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage, RunUsage, UsageLimits

from compact_agent.context import CompactionSettings, ContextManager
from compact_agent.context.compaction import in_run
from compact_agent.context.testing import library_request, reply_to_library_request

STEPS = 14


class Provider:
    """Reads a page `STEPS` times, then answers; logs each request it is sent, by kind."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        sent = sum(len(str(getattr(p, "content", ""))) for m in messages for p in m.parts)
        usage = RequestUsage(input_tokens=sent // 4 + 200, output_tokens=20)
        if library_request(messages) == "summary":
            self.sent.append("summary")
            reply = reply_to_library_request(messages, "Pages read so far.", usage=usage)
            assert reply is not None
            return reply
        self.sent.append("turn")
        page = self.sent.count("turn")
        if page <= STEPS:
            return ModelResponse(parts=[ToolCallPart("read", {"page": page})], usage=usage)
        return ModelResponse(parts=[TextPart("done")], usage=usage)


def reader(provider: Provider) -> Agent[None, str]:
    cm = ContextManager(window=6_000, settings=CompactionSettings(compaction_records=False))
    agent: Agent[None, str] = Agent(FunctionModel(provider), capabilities=[cm])

    @agent.tool_plain
    def read(page: int) -> str:
        """One page."""
        return f"page {page}: " + " ".join(f"line-{page}-{i}" for i in range(250))

    return agent


async def unlimited() -> list[str]:
    provider = Provider()
    await reader(provider).run("Read the pages.")
    return provider.sent


async def run_to(limit: int) -> tuple[str, list[str]]:
    provider = Provider()
    with pytest.raises(UsageLimitExceeded) as raised:
        await reader(provider).run("Read the pages.", usage_limits=UsageLimits(request_limit=limit))
    return str(raised.value), provider.sent


async def test_a_limit_a_summary_counted_toward_names_it_at_the_step_it_stops() -> None:
    sent = await unlimited()
    first = sent.index("summary")
    assert "summary" in sent[first + 2:]  # a second compaction comes after two more turns at least
    # The limit reached at a turn's own step, the summary before it counted: pydantic-ai's check.
    limit = first + 2  # the turns before the summary, the summary, and the turn after it
    said, made = await run_to(limit)
    assert made == sent[:limit]
    assert said.startswith(f"The next request would exceed the request_limit of {limit} "
                           f"({limit} requests made, 1 of them the context manager's own: summaries compacting")
    assert "each counted as one of the run's requests" in said


async def test_a_limit_that_leaves_no_room_for_the_summary_names_it() -> None:
    sent = await unlimited()
    first = sent.index("summary")
    # The summary due as the (first + 1)th request, the step's own after it: no room for both.
    said, made = await run_to(first + 1)
    assert made == sent[:first]  # neither sent: the run ends before the summary
    assert said.startswith(f"The next request would exceed the request_limit of {first + 1}: the summary "
                           f"request compacting the history comes before it, and counts as one of the run's "
                           f"requests ({first} requests made so far)")


async def test_a_limit_reached_with_no_summary_counted_keeps_pydantic_ai_s_words() -> None:
    said, made = await run_to(3)
    assert made == ["turn"] * 3
    assert said.startswith("The next request would exceed the request_limit of 3. Consider raising the limit")


def test_each_usage_keeps_how_many_of_its_requests_were_the_librarys() -> None:
    usage = RunUsage(requests=4)
    run = in_run.Run(usage, UsageLimits(request_limit=6), after=0)
    in_run.count(run, RequestUsage(input_tokens=10))
    assert (usage.requests, in_run.own_requests(usage), in_run.own_requests(RunUsage(requests=5))) == (5, 1, 0)
    with pytest.raises(UsageLimitExceeded, match=r"^The summary request compacting the history would exceed the "
                       r"request_limit of 5: it counts as one of the requests of the usage given \(5 requests "
                       r"made so far, 1 of them the context manager's own\)"):
        in_run.admit(in_run.Run(usage, UsageLimits(request_limit=5), after=0))  # compact_now's: none after it


def test_a_token_limit_a_summary_took_the_run_past_names_it() -> None:
    usage = RunUsage(requests=3, input_tokens=900)
    with pytest.raises(UsageLimitExceeded, match=r"^Exceeded the total_tokens_limit of 1000 \(total_tokens=1100\) "
                       r"\(4 requests made, 1 of them the context manager's own: summaries compacting"):
        in_run.count(in_run.Run(usage, UsageLimits(total_tokens_limit=1_000)), RequestUsage(input_tokens=200))
