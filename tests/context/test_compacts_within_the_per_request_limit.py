"""A run's `per_request_input_tokens_limit` below the window: the agent's own requests are kept under it.

The schedule compacted by the window alone: a caller guarding each request's context at 5,500 tokens
in a 16,000-token window saw the agent's own requests grow past it, and pydantic-ai ended the run on
the first response reporting more ("Exceeded the per_request_input_tokens_limit of 5500"), where a
compaction earlier would have kept every request under it. While a run carries such a limit, the
schedule, its triggers and the last resort now take the smaller of the two as the window; the
compactions it makes keep what every compaction keeps (the words the user typed, the newest result).
A request that cannot be brought under it is not sent, the run ending on the limit's error.
"""

from __future__ import annotations

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage, UsageLimits

from compact_agent.context import CompactionSettings, ContextManager, Event
from compact_agent.context.testing import reply_to_library_request

WINDOW, LIMIT, PAGES = 16_000, 5_500, 12
ASK = "Read the pages, then say done."


def size_of(messages: list[ModelMessage]) -> int:
    """A request's input tokens as this provider counts them: its text at four characters a token."""
    return sum(len(str(getattr(p, "content", "") or getattr(p, "args", ""))) for m in messages for p in m.parts) // 4


async def read_pages(limits: UsageLimits, instructions: str = "", max_tokens: int | None = None
                     ) -> tuple[str, list[list[ModelMessage]], list[Event]]:
    """Twelve pages of ~700 tokens read through a tool (each request asking `max_tokens` for its answer):
    (output, each request of the agent's, the events)."""
    sent: list[list[ModelMessage]] = []

    def provider(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        usage = RequestUsage(input_tokens=size_of(messages) + len(instructions) // 4, output_tokens=20)
        if (reply := reply_to_library_request(messages, "Pages read so far.", usage=usage)) is not None:
            return reply
        sent.append(list(messages))
        step = len(sent)
        return ModelResponse(parts=[ToolCallPart("read", {"page": step})] if step <= PAGES else [TextPart("done")],
                             usage=usage)

    events: list[Event] = []
    cm = ContextManager(window=WINDOW, settings=CompactionSettings(compaction_records=False),
                        event_handler=events.append)
    agent = Agent(FunctionModel(provider), instructions=instructions or None, capabilities=[cm],
                  model_settings={"max_tokens": max_tokens} if max_tokens else None)

    @agent.tool_plain
    def read(page: int) -> str:
        """One page."""
        return f"page {page}: " + " ".join(f"line-{page}-{i:03d}" for i in range(250))

    result = await agent.run(ASK, usage_limits=limits)
    return result.output, sent, events


def typed(messages: list[ModelMessage]) -> str:
    return " ".join(str(p.content) for m in messages if isinstance(m, ModelRequest) for p in m.parts
                    if not isinstance(p, ToolReturnPart))


@pytest.mark.parametrize("max_tokens", [None, 4_096])
async def test_the_agents_requests_are_compacted_to_stay_under_the_runs_per_request_limit(max_tokens: int | None
                                                                                          ) -> None:
    """The `max_tokens` a request asks is room the window keeps beside the input, none of the limit's: held
    to the limit less the 4,096 of it, the requests were kept under 1,269 tokens, compacted far more often."""
    _, unlimited, events = await read_pages(UsageLimits(), max_tokens=max_tokens)
    assert max(map(size_of, unlimited)) > LIMIT  # what the limit guards: the window alone lets requests past it
    assert not [e for e in events if e.layer == "compact"]  # and none is compacted by the window

    output, sent, events = await read_pages(UsageLimits(per_request_input_tokens_limit=LIMIT), max_tokens=max_tokens)
    assert output == "done" and len(sent) == PAGES + 1
    assert max(map(size_of, sent)) <= LIMIT  # every request of the agent's under the caller's limit
    assert max(map(size_of, sent)) > LIMIT * 0.6  # held to it, not to a window far below it
    assert [e.action for e in events if e.layer == "compact"] == ["full", "full"]  # summaries, no failure
    for n, messages in enumerate(sent[1:], start=1):  # what every compaction keeps
        assert ASK in typed(messages)
        newest = [p for p in messages[-1].parts if isinstance(p, ToolReturnPart)]
        assert [str(p.content) for p in newest] == [f"page {n}: " + " ".join(f"line-{n}-{i:03d}" for i in range(250))]


async def test_a_request_that_cannot_be_brought_under_the_limit_is_not_sent() -> None:
    """Instructions alone past the limit (and well within the window): no request is sent, and the run
    ends on the limit, named with what takes the room."""
    with pytest.raises(UsageLimitExceeded) as caught:
        await read_pages(UsageLimits(per_request_input_tokens_limit=LIMIT), instructions="Be brief. " * 2_400)
    said = str(caught.value)
    assert said.startswith(f"Exceeded the per_request_input_tokens_limit of {LIMIT}: this request needs ")
    assert f"the run's per_request_input_tokens_limit is {LIMIT:,}" in said and "window" not in said
    assert "\n" not in said
