"""A run's `per_request_input_tokens_limit` below the window, where a request is refused (request_limit.py).

While such a limit holds the agent's requests as a window would: a compaction answering the provider's
"prompt too long" is held to it too (made for the window, it kept the typed ask whole by the window's
budget for it, could not shrink the request, and the run ended on the refusal); a window learned while
it holds (a summary request refused) is learned below the window given, not below the limit; a request
that cannot be brought under it says so in a `window` / `refused` event marked as the limit's, and in
an error that advises raising it once (pydantic-ai 2.68 adds its own "Consider raising the limit").
"""

from __future__ import annotations

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import ModelHTTPError, UsageLimitExceeded
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage, UsageLimits

from compact_agent.context import CompactionSettings, ContextManager, Event
from compact_agent.context.testing import reply_to_library_request
from tests.context.scripted_model import size

WINDOW, LIMIT, PAGES = 16_000, 5_500, 12
LIMITS = UsageLimits(per_request_input_tokens_limit=LIMIT)


async def read_pages(events: list[Event], refuse_over: int, refusal: str, ask: str = "Read the pages, then say done.",
                     instructions: str = "") -> tuple[str, list[int], ContextManager]:
    """Twelve pages of ~700 tokens read through a tool, from a provider that refuses every request (the
    library's too) over `refuse_over` tokens with `refusal` ({size}: the request's): (output, the size of
    each request it answered of the agent's, the manager), the manager's events in `events`."""
    sent: list[int] = []

    def provider(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if size(messages) > refuse_over:
            raise ModelHTTPError(400, "fake", body={"error": {"message": refusal.format(size=size(messages))}})
        usage = RequestUsage(input_tokens=size(messages) + len(instructions) // 4, output_tokens=20)
        if (reply := reply_to_library_request(messages, "Pages read so far.", usage=usage)) is not None:
            return reply
        sent.append(size(messages))
        return ModelResponse(parts=[ToolCallPart("read", {"page": len(sent)})] if len(sent) <= PAGES
                             else [TextPart("done")], usage=usage)

    cm = ContextManager(window=WINDOW, settings=CompactionSettings(compaction_records=False),
                        event_handler=events.append)
    agent = Agent(FunctionModel(provider), instructions=instructions or None, capabilities=[cm])

    @agent.tool_plain
    def read(page: int) -> str:
        """One page."""
        return f"page {page}: " + " ".join(f"line-{page}-{i:03d}" for i in range(250))

    result = await agent.run(ask, usage_limits=LIMITS)
    return result.output, sent, cm


async def test_a_compaction_answering_a_refusal_is_held_to_the_limit() -> None:
    """A provider that takes 2,500 tokens and does not say so: the compaction answering its refusal,
    made for the 16,000-token window, kept the 1,900-token ask whole (the window's budget for what the
    user typed is 2,000), would not shrink the request, and the run ended on the refusal. Held to the
    limit, it keeps what a compaction there keeps (the ask by its two ends), and the run finishes."""
    ask = "Read the pages, then say done. " + "Keep every figure exact. " * 300
    events: list[Event] = []
    output, sent, _ = await read_pages(events, 2_500, "prompt is too long", ask=ask)
    reactive = [e for e in events if e.layer == "compact" and e.trigger == "reactive"]
    assert output == "done" and len(sent) == PAGES + 1 and max(sent) <= 2_500
    assert reactive and not [e for e in reactive if e.action == "failed"]


async def test_a_window_learned_while_the_limit_holds_is_learned_below_the_window_given() -> None:
    """A summary request refused by a 4,000-token server while the limit held the manager's limits:
    its `window` / `learned` event and the saved state name the 16,000 given, not the limit."""
    events: list[Event] = []
    output, sent, cm = await read_pages(
        events, 4_000, "This model's maximum context length is 4000 tokens. However, your messages resulted in {size} "
               "tokens.")
    learned = [e for e in events if e.layer == "window" and e.action == "learned"]
    assert output == "done" and max(sent) <= 4_000
    assert [(e.tokens_after, e.detail["given"], e.detail.get("request")) for e in learned] == [
        (4_000, WINDOW, "summary")]
    assert cm.window_learned is not None and (cm.window_learned.window, cm.window_learned.given) == (4_000, WINDOW)


async def test_a_request_that_cannot_fit_the_limit_is_said_as_the_limit_once() -> None:
    """Instructions alone past the limit: the `window` / `refused` event's window is the limit, and says
    so; the run's error advises raising the limit once, whether or not pydantic-ai adds its own advice."""
    events: list[Event] = []
    with pytest.raises(UsageLimitExceeded) as caught:
        await read_pages(events, WINDOW, "", instructions="Be brief. " * 2_400)
    said = str(caught.value)
    assert said.startswith(f"Exceeded the per_request_input_tokens_limit of {LIMIT}: this request needs ")
    assert said.lower().count("rais") == 1, said
    assert "window" not in said and "\n" not in said
    refused = [e.detail for e in events if e.layer == "window" and e.action == "refused"]
    assert [(d["window"], d.get("limit")) for d in refused] == [(LIMIT, "per_request_input_tokens_limit")]


async def test_a_refusal_that_leaves_the_limit_no_room_ends_the_run_on_the_limit() -> None:
    """The provider counts 7,000 tokens for a request of a few words: its instructions and tools, as it
    counts them, leave the limit no room, and no compaction is tried (one was: its summary request refused
    as well, and the run ended on the provider's refusal); the run ends on the limit, saying so."""
    events: list[Event] = []
    with pytest.raises(UsageLimitExceeded) as caught:
        await read_pages(events, 0, "prompt is too long: your request has 7000 input tokens")
    assert "instructions and tool definitions alone (as the provider counts them)" in str(caught.value)
    assert [(e.layer, e.action) for e in events] == [("window", "refused")]
