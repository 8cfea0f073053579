"""A compaction counts the system prompts it keeps in the size of the history it makes.

pydantic-ai adds an agent's `system_prompt=` only to an empty history, so a compaction puts the
first request's system prompts back at the start of the compacted history (contract.py). It did so
after measuring that history: every `compact` event's `tokens_after` fell short by the prompts, and
a compaction they left no smaller went ahead, rewrote the user's prompt into a record, and the
request was refused anyway as too large for the window."""

from __future__ import annotations

import pytest
from pydantic_ai import Agent, capture_run_messages
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage, UsageLimits

from compact_agent.context import CompactionEvent, ContextManager, Event, WindowTooSmallError
from compact_agent.context.testing import reply_to_library_request

RULES = "Rule: answer in English, cite the page you read. " * 120  # about 1,500 tokens


def reader(read: list[int]) -> FunctionModel:
    """Reads 20 pages (the tool appends each to `read`), then answers; reports the tokens it was
    sent as the library estimates them, so a compaction's figures are in the same tokens."""
    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        sent = sum(len(str(getattr(p, "content", ""))) for m in messages for p in m.parts)
        usage = RequestUsage(input_tokens=sent // 4, output_tokens=20)  # as the estimate counts
        if (reply := reply_to_library_request(messages, "Pages read so far.", usage=usage)) is not None:
            return reply
        if len(read) < 20:
            return ModelResponse(parts=[ToolCallPart("read", {"page": len(read) + 1})], usage=usage)
        return ModelResponse(parts=[TextPart("done")], usage=usage)
    return FunctionModel(answer)


async def test_tokens_after_of_a_compaction_counts_the_system_prompt_it_keeps() -> None:
    events: list[Event] = []
    cm = ContextManager(window=8_000, event_handler=events.append)
    pages: list[int] = []
    agent = Agent(reader(pages), capabilities=[cm], system_prompt=RULES)

    @agent.tool_plain
    def read(page: int) -> str:
        pages.append(page)
        return f"page {page}: " + " ".join(f"w{page}x{i}" for i in range(300))

    result = await agent.run("Read the pages.", usage_limits=UsageLimits(request_limit=100))
    compactions = [e for e in events if isinstance(e, CompactionEvent) and e.action in ("record", "full")]
    assert compactions and result.output == "done"
    rules = len(RULES) // 4
    for e in compactions:
        assert e.tokens_after > rules  # the history it made starts with the system prompt
    assert cm.compactions[-1].tokens_after == compactions[-1].tokens_after > rules


async def test_a_system_prompt_larger_than_the_window_is_refused_without_rewriting_the_prompt() -> None:
    events: list[Event] = []
    cm = ContextManager(window=6_000, event_handler=events.append)
    agent = Agent(reader([]), capabilities=[cm], system_prompt="rule. " * 6_000)

    with capture_run_messages() as messages, pytest.raises(WindowTooSmallError, match="the context window is 6,000"):
        await agent.run("Read the pages.")

    assert not [e for e in events if isinstance(e, CompactionEvent) and e.action in ("record", "full")]
    [request] = messages
    assert isinstance(request, ModelRequest)
    assert [p.content for p in request.parts if isinstance(p, UserPromptPart)] == ["Read the pages."]
