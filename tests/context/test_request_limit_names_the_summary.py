"""A run's `request_limit` counts the agent's steps only; a token limit the summaries took it past says so.

A compaction's summary request made during a run was counted as one of the run's requests, and held
to its `request_limit`: a limit that held the agent's own steps exactly ended the run (its line said
a summary had counted), and a conversation carried whole (`Conversation.usage`, across its runs)
stopped at pydantic-ai's default `request_limit` of 50 a turn before the same agent without the
library did. pydantic-ai counts there the responses committed to the history, one per step of the
agent loop (`RunUsage.requests`), not every request sent. The library's requests add their tokens
and cost to the run (compaction/in_run.py) and no request: the run stops where the agent alone
would, with pydantic-ai's words; a token or cost limit they took it past names them.
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


async def test_the_request_limit_stops_the_run_at_the_agents_own_step() -> None:
    sent = await unlimited()
    assert sent.count("summary") >= 2 and sent.count("turn") == STEPS + 1
    assert (await reader(Provider()).run("Read the pages.", usage_limits=UsageLimits(
        request_limit=STEPS + 1))).output == "done"  # the agent's steps fit: so do the summaries
    for limit in (sent.index("summary") + 1, STEPS):  # just before a summary, and one step short
        provider = Provider()
        with pytest.raises(UsageLimitExceeded) as raised:
            await reader(provider).run("Read the pages.", usage_limits=UsageLimits(request_limit=limit))
        assert provider.sent.count("turn") == limit and provider.sent == sent[:len(provider.sent)]
        assert str(raised.value).startswith(f"The next request would exceed the request_limit of {limit}. "
                                            "Consider raising the limit")


def test_each_usage_keeps_how_many_requests_of_the_librarys_it_counts() -> None:
    usage = RunUsage(requests=4)
    run = in_run.Run(usage, UsageLimits(request_limit=4))
    in_run.admit(run)  # the request limit is the agent's steps': a summary is none of them
    in_run.count(run, RequestUsage(input_tokens=10))
    assert (usage.requests, usage.input_tokens) == (4, 10)
    assert (in_run.own_requests(usage), in_run.own_requests(RunUsage(requests=5))) == (1, 0)
    with pytest.raises(UsageLimitExceeded, match=r"^The next request would exceed the input_tokens_limit of 5"):
        in_run.admit(in_run.Run(usage, UsageLimits(input_tokens_limit=5)))  # past a token limit: not sent


def test_a_token_limit_a_summary_took_the_run_past_names_it() -> None:
    usage = RunUsage(requests=3, input_tokens=900)
    with pytest.raises(UsageLimitExceeded, match=r"^Exceeded the total_tokens_limit of 1000 \(total_tokens=1100\) "
                       r"\(3 requests of the run's steps, and 1 of the context manager's own: summaries compacting"):
        in_run.count(in_run.Run(usage, UsageLimits(total_tokens_limit=1_000)), RequestUsage(input_tokens=200))
