"""A run whose last model request compacted returns the compacted history as its `new_messages()`.

pydantic-ai works out where a run's new messages start before each request's
`prepare_model_request` hooks, where the compaction rewrites the history. A run whose last request
compacted (a chat turn answered in one request, or the answer after a tool loop) returned `[]`
from `new_messages()`, the start worked out before lying past the end of the shorter history, so
a caller keeping what `new_messages()` gives, as docs/library.md says to after a compaction, kept
nothing of the turn."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import ContextManager
from compact_agent.context.testing import reply_to_library_request


def provider(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """'read' asks for eight pages at once; anything else is answered in one request."""
    if (reply := reply_to_library_request(messages, "Pages read so far.")) is not None:
        return reply
    last = messages[-1]
    if isinstance(last, ModelRequest) and any(isinstance(p, UserPromptPart) and p.content == "read"
                                              for p in last.parts):
        return ModelResponse(parts=[ToolCallPart("read", {"page": i}) for i in range(8)])
    return ModelResponse(parts=[TextPart("ok")])


def paired(messages: Sequence[ModelMessage]) -> bool:
    calls = {p.tool_call_id for m in messages for p in m.parts if isinstance(p, ToolCallPart)}
    results = {p.tool_call_id for m in messages for p in m.parts if isinstance(p, ToolReturnPart)}
    return bool(messages) and isinstance(messages[0], ModelRequest) and calls == results


@pytest.mark.parametrize("how", ["run", "iter"])
async def test_a_run_that_compacted_at_its_last_request_returns_the_compacted_history_as_new(how: str) -> None:
    cm = ContextManager(window=8_000)
    agent = Agent(FunctionModel(provider), capabilities=[cm])

    @agent.tool_plain
    def read(page: int) -> str:
        return f"page {page}: " + " ".join(f"w{page}x{i}" for i in range(300))

    kept: list[ModelMessage] = []
    compacted_at_the_end = 0
    for prompt in ["read", "read", "hello", "read", "hi"]:
        before = len(cm.compactions)
        if how == "run":
            result = await agent.run(prompt, message_history=kept)
        else:
            async with agent.iter(prompt, message_history=kept) as run:
                [_ async for _ in run]  # every node, to the end of the run
            assert run.result is not None
            result = run.result
        if len(cm.compactions) > before:
            last_response = result.all_messages()[-1]
            compacted_at_the_end += isinstance(last_response, ModelResponse) and not last_response.tool_calls
            # The compacted history is all new, as docs/library.md says: keep it instead.
            assert result.new_messages() == result.all_messages()
            kept = result.new_messages()
        else:
            kept = [*kept, *result.new_messages()]
        assert paired(kept) and kept == result.all_messages()
    assert compacted_at_the_end  # the case the test is for happened
