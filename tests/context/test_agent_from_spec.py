"""What docs/library.md says of agents made from a spec and of `cm.compactions`, as a user meets them."""

from __future__ import annotations

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage, UsageLimits

from compact_agent.context import ContextManager, InMemoryStore
from compact_agent.context.testing import reply_to_library_request


def test_an_agent_from_a_spec_takes_the_manager_as_an_extra_capability() -> None:
    cm = ContextManager(window=16_000)
    agent = Agent.from_spec({"model": "test", "instructions": "Be brief."}, capabilities=[cm])
    assert agent.run_sync("hi").output
    assert isinstance(cm.store, InMemoryStore) and len(cm.store.messages) == 2  # it served the run
    with pytest.raises(ValueError, match="dataclass"):  # pydantic-ai builds only dataclass capabilities from a spec
        Agent.from_spec({"model": "test", "capabilities": [{"ContextManager": {"window": 16_000}}]},
                        custom_capability_types=[ContextManager])


def test_only_the_newest_compaction_keeps_its_history_and_summary() -> None:
    steps: list[int] = []

    def llm(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        sent = sum(len(str(getattr(p, "content", ""))) for m in messages for p in m.parts)
        usage = RequestUsage(input_tokens=sent // 4 + 100, output_tokens=10)
        if (reply := reply_to_library_request(messages, usage=usage)) is not None:
            return reply
        steps.append(1)
        if len(steps) <= 30:
            return ModelResponse(parts=[ToolCallPart("page", {"n": len(steps)})], usage=usage)
        return ModelResponse(parts=[TextPart("done")], usage=usage)

    cm = ContextManager(window=8_000)
    agent = Agent(FunctionModel(llm), capabilities=[cm])

    @agent.tool_plain
    def page(n: int) -> str:
        """A page."""
        return f"page {n}: " + "word " * 500

    result = agent.run_sync("read", usage_limits=UsageLimits(request_limit=100))
    assert len(cm.compactions) >= 2
    *older, newest = cm.compactions
    assert all(c.messages == [] and c.summary == "" for c in older)
    assert newest.messages and newest.summary and newest.messages[0] is result.all_messages()[0]
