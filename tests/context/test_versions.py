"""The library on the pydantic-ai versions it declares, and beside pydantic-ai-harness in one agent.

These run in the project's environment (the newest pydantic-ai-slim) and, with `make compat`, in a
second one with the versions pydantic-ai-harness pins (pydantic-ai-slim 2.62, which has neither
`prepare_model_request` nor `RetryModelRequest`: compat.py). The harness test is skipped where the
harness is not installed.
"""

from __future__ import annotations

from importlib.metadata import version

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import ModelContextWindowExceededError
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage, UsageLimits

from compact_agent.context import ContextManager, Event
from compact_agent.context.testing import reply_to_library_request

LIMITS = UsageLimits(request_limit=200)


def size(messages: list[ModelMessage]) -> int:
    return sum(len(str(getattr(p, "content", ""))) for m in messages for p in m.parts) // 4


class Pages:
    """Reads `pages` pages; a provider whose real window is `limit` (smaller than the capability
    was told) answers a larger request with "prompt too long"."""

    def __init__(self, pages: int, limit: int | None = None) -> None:
        self.left, self.limit = pages, limit
        self.sizes: list[int] = []
        self.refused = 0
        self.saw_cleared = 0  # requests that carried a result cleared by pydantic-ai-harness

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        n = size(messages) + 100
        if self.limit is not None and n > self.limit:
            self.refused += 1
            raise ModelContextWindowExceededError(
                400, "fake", body={"error": {"message": f"This model's maximum context length is {self.limit} "
                                                        f"tokens. However, your messages resulted in {n} tokens"}})
        self.sizes.append(n)
        self.saw_cleared += any("[tool result cleared]" in str(getattr(p, "content", "")) for m in messages
                                for p in m.parts)
        usage = RequestUsage(input_tokens=n, output_tokens=10)
        if (reply := reply_to_library_request(messages, usage=usage)) is not None:
            return reply
        if self.left:
            self.left -= 1
            return ModelResponse(parts=[ToolCallPart("read", {"page": self.left})], usage=usage)
        return ModelResponse(parts=[TextPart("done")], usage=usage)


def agent_for(model: Pages, capabilities: list[object]) -> Agent[None, str]:
    agent: Agent[None, str] = Agent(FunctionModel(model), capabilities=capabilities)  # type: ignore[arg-type]

    @agent.tool_plain
    def read(page: int) -> str:
        """One page."""
        return f"page {page}: " + " ".join(f"line-{page}-{i}" for i in range(500))

    return agent


async def test_a_provider_that_says_too_long_gets_the_compacted_request_once() -> None:
    """16K is what the capability is told; the provider takes 5.5K (the schedule's own
    compactions keep the requests under 6.5K). On 2.64+ the hook asks pydantic-ai
    to retry; on 2.62 it sends the compacted request itself."""
    model = Pages(25, limit=5_500)
    events: list[Event] = []
    cm = ContextManager(window=16_000, event_handler=events.append)
    result = await agent_for(model, [cm]).run("Read.", usage_limits=LIMITS)
    assert result.output == "done" and model.refused >= 1
    assert cm.window == 5_500  # learnt from the provider's error
    assert any(e.layer == "compact" and e.trigger == "reactive" and not e.failed for e in events)
    assert max(model.sizes) <= 5_500


async def test_beside_pydantic_ai_harness_in_one_agent() -> None:
    harness = pytest.importorskip("pydantic_ai_harness")
    clear = harness.ClearToolResults(max_messages=6, keep_pairs=2)
    model = Pages(40)
    cm = ContextManager(window=9_000)  # small enough that the capability compacts after the clearing
    result = await agent_for(model, [clear, cm]).run("Read.", usage_limits=LIMITS)
    assert result.output == "done" and max(model.sizes) <= 9_000 and cm.requests == len(model.sizes)
    history = result.all_messages()
    calls = {p.tool_call_id for m in history for p in m.parts if isinstance(p, ToolCallPart)}
    results = {p.tool_call_id for m in history for p in m.parts if isinstance(p, ToolReturnPart)}
    assert calls == results
    assert model.saw_cleared and cm.compactions  # both capabilities acted on the same history
    print("pydantic-ai-slim", version("pydantic-ai-slim"), "harness", version("pydantic-ai-harness"))
