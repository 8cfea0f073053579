"""A `token_counter` that says 0 for a message with text (or a tool call, an image, thinking) is
refused, as the docs say, whatever the message's length: any tokenizer counts text as a token at
least. It was taken for any message of up to 8 estimated tokens, so a counter that said 0 for
everything ran unnoticed through a short exchange ("hi", "ok"), each message counted as nothing.
A message with nothing in it (empty, or blank text) may still be 0."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import (
    BinaryContent,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import ContextManager
from compact_agent.context.arguments import counted


def _answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart("ok")])


def _nothing(messages: Sequence[ModelMessage]) -> int:
    return 0


async def test_a_counter_that_says_0_for_a_short_prompt_stops_the_run_in_words() -> None:
    agent = Agent(FunctionModel(_answer), capabilities=[ContextManager(window=8_000, token_counter=_nothing)])
    with pytest.raises(ValueError) as caught:
        await agent.run("hi")
    assert str(caught.value) == ("token_counter returned 0 for a message of about 5 tokens; it must return the "
                                 "message's token count (a whole number)")


@pytest.mark.parametrize("message", [
    ModelRequest(parts=[UserPromptPart("ok")]),
    ModelResponse(parts=[TextPart("ok")]),
    ModelResponse(parts=[ToolCallPart("ls", {})]),
    ModelRequest(parts=[ToolReturnPart("ls", [], tool_call_id="c1")]),  # its call's id and "[]" are sent
    ModelRequest(parts=[UserPromptPart([BinaryContent(b"\x89PNG", media_type="image/png")])]),
    ModelResponse(parts=[ThinkingPart("the counter counts it; the pipeline leaves out what the provider does")]),
])
def test_0_for_a_message_with_text_is_refused(message: ModelMessage) -> None:
    with pytest.raises(ValueError, match="^token_counter returned 0 for a message of about"):
        counted(0, message)


@pytest.mark.parametrize("message", [
    ModelRequest(parts=[UserPromptPart("")]),
    ModelResponse(parts=[TextPart("  ")]),
    ModelResponse(parts=[]),
])
def test_0_for_a_message_without_text_is_a_count(message: ModelMessage) -> None:
    assert counted(0, message) == 0
