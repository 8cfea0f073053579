"""An agent whose `max_tokens` alone is the whole window or more is told that, not to shorten its
instructions.

A local 8K model run with `model_settings={"max_tokens": 10_000}` (a setting carried over from a larger
model) was refused with "this request needs 0 tokens for its instructions and tool definitions alone,
but the context window is 8,000 less the 10,000 its max_tokens asks for the answer (0): send shorter
instructions or fewer tools, ...": a need of 0 tokens, and advice first that cannot help, since no
request fits a window its answer alone fills. Nothing is sent either way."""

from __future__ import annotations

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.settings import ModelSettings

from compact_agent.context import ContextManager, WindowTooSmallError


@pytest.mark.parametrize("instructions", [None, "Answer briefly. " * 50], ids=["bare", "with-instructions"])
@pytest.mark.parametrize("max_tokens", [8_000, 10_000])
def test_max_tokens_that_fill_the_window_are_named_as_the_cause(instructions: str | None, max_tokens: int) -> None:
    sent: list[list[ModelMessage]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        sent.append(messages)
        return ModelResponse(parts=[TextPart("ok")])

    agent = Agent(FunctionModel(model), instructions=instructions, capabilities=[ContextManager(window=8_000)],
                  model_settings=ModelSettings(max_tokens=max_tokens))
    with pytest.raises(WindowTooSmallError) as caught:
        agent.run_sync("hi")
    assert str(caught.value) == (f"the {max_tokens:,} tokens its max_tokens asks for the answer take the whole "
                                 "context window (8,000), leaving no room for any request: ask for a shorter answer "
                                 "(max_tokens below 8,000), or pass a larger window= to ContextManager")
    assert sent == []
