"""An automatic compaction's figures count what the next request sends, as /context does.

Its 'before' was the request the view layers shaped, its 'after' the kept history as saved: a long
tool result the compaction keeps in its verbatim tail counted whole, where every request sends its
preview (L1). The REPL's line said `compacted (auto, full): 10,467 → 9,120 tokens`, and the next
request (and /context) counted 2,968: two numbers for the same thing. Both are now of the view."""

from __future__ import annotations

from collections.abc import Callable

from pydantic_ai import Agent
from pydantic_ai.exceptions import ModelContextWindowExceededError
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage, UsageLimits

from compact_agent.context import CompactionEvent, CompactionSettings, ContextManager, Event, Prices
from compact_agent.context.testing import reply_to_library_request

PAGES = 30


async def read_the_log(cm: ContextManager, usage_of: Callable[[list[ModelMessage]], RequestUsage],
                       request_limit: int) -> list[tuple[int, int]]:
    """An agent with `cm` reads PAGES pages of a log, one a request, then says "done"; its model's
    usage is `usage_of(messages)` (which may raise, as a server refusing the request). At each of the
    agent's own requests: (compactions so far, the size of the request as the manager measured it)."""
    sent: list[tuple[int, int]] = []
    pages: list[int] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        usage = usage_of(messages)
        if (reply := reply_to_library_request(messages, "Pages read so far.", usage=usage)) is not None:
            return reply
        sent.append((len(cm.compactions), cm.last_tokens))
        if len(pages) < PAGES:
            return ModelResponse(parts=[ToolCallPart("read", {"page": len(pages) + 1})], usage=usage)
        return ModelResponse(parts=[TextPart("done")], usage=usage)

    agent = Agent(FunctionModel(model), capabilities=[cm])

    @agent.tool_plain
    def read(page: int) -> str:
        """Read a page of the log."""
        pages.append(page)
        return "\n".join(f"page {page} line {k}: worker ok, queue depth {k * 7 % 13}" for k in range(400))

    await agent.run("Read the log.", usage_limits=UsageLimits(request_limit=request_limit))
    return sent


def size_of(messages: list[ModelMessage]) -> int:
    return sum(len(str(getattr(p, "content", ""))) for m in messages for p in m.parts) // 4


async def test_an_automatic_compaction_counts_the_request_it_leaves() -> None:
    events: list[Event] = []
    # Thresholds only, no collapse, no clearing: the history grows to the threshold and compacts.
    settings = CompactionSettings(collapse_enabled=False, priced_compaction=False)
    cm = ContextManager(window=16_000, settings=settings, compactable_tools=["nothing"], event_handler=events.append,
                        prices=Prices(known=False))
    sent = await read_the_log(cm, lambda messages: RequestUsage(input_tokens=size_of(messages), output_tokens=10), 60)

    compactions = [e for e in events if isinstance(e, CompactionEvent) and not e.failed and e.trigger == "auto"]
    assert compactions, sorted({(e.layer, e.action) for e in events})
    first = compactions[0]
    after = next(size for n, size in sent if n == 1)  # the first request after it, as /context counts it
    assert first.tokens_before > first.tokens_after
    assert abs(first.tokens_after - after) <= 50, (first.tokens_before, first.tokens_after, after)
    assert cm.compactions[0].tokens_after == first.tokens_after


async def test_a_reactive_compaction_counts_the_request_it_leaves() -> None:
    """The server's window is smaller than the one given: its refusal compacts (reactive). Each page
    is over the size a result is sent whole at (a preview goes instead), whatever the window."""
    events: list[Event] = []
    settings = CompactionSettings(collapse_enabled=False, priced_compaction=False, tool_result_max_chars=8_000)
    cm = ContextManager(window=64_000, settings=settings, compactable_tools=["nothing"], event_handler=events.append,
                        prices=Prices(known=False))

    def usage_of(messages: list[ModelMessage]) -> RequestUsage:
        size = size_of(messages)
        if size > 10_000:
            raise ModelContextWindowExceededError("local", "context_length_exceeded", body={"error": {
                "code": "context_length_exceeded", "message": f"This model's maximum context length is 12000 "
                f"tokens. However, your messages resulted in {size + 1_500} tokens."}})
        return RequestUsage(input_tokens=size + 1_500, output_tokens=10)

    sent = await read_the_log(cm, usage_of, 80)

    reactive = [e for e in events if isinstance(e, CompactionEvent) and not e.failed and e.trigger == "reactive"]
    assert reactive, sorted({(e.layer, e.action, e.trigger) for e in events})
    first = reactive[0]
    after = next(size for n, size in sent if n == 1)
    assert first.tokens_before > first.tokens_after
    assert abs(first.tokens_after - after) <= 50, (first.tokens_before, first.tokens_after, after)
