"""A history message edited in place between runs is measured again: sizes are memoised per message
object, and the same object with other content was measured at its old size, so a request went
over the window (a strict server refused it)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelRequestPart,
    ModelResponse,
    TextPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from compact_agent.context import ContextManager
from compact_agent.context.plumbing import tokens
from compact_agent.context.plumbing.identity_memo import forget_changed


def chars(messages: Sequence[ModelMessage]) -> int:
    """Characters of the messages' content, counted afresh (no memo)."""
    return sum(len(str(getattr(p, "content", "") or "")) for m in messages for p in m.parts)


def test_a_part_given_other_content_is_measured_again() -> None:
    part = UserPromptPart("a" * 400)
    parts: list[ModelRequestPart] = [part]
    m = ModelRequest(parts=parts)
    forget_changed([m])
    assert tokens.message_tokens(m) == 4 + 100
    part.content = "b" * 4_000
    assert tokens.message_tokens(m) == 4 + 100  # the memo, until the next request looks
    forget_changed([m])
    assert tokens.message_tokens(m) == 4 + 1_000
    parts.append(UserPromptPart("c" * 400))  # a part added
    forget_changed([m])
    assert tokens.message_tokens(m) == 4 + 1_100
    forget_changed([m])  # nothing changed since: kept
    assert tokens.message_tokens(m) == 4 + 1_100


@pytest.mark.parametrize("counter", [None, lambda messages: chars(messages) // 4 + 4 * len(messages)])
def test_a_message_edited_between_runs_is_not_sent_over_the_window(
        counter: Callable[[Sequence[ModelMessage]], int] | None) -> None:
    sent: list[int] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        size = chars(messages) // 4 + 4 * len(messages)
        sent.append(size)
        return ModelResponse(parts=[TextPart("<summary>sum</summary>" if size > 3_000 else "short answer")],
                         usage=RequestUsage(input_tokens=size, output_tokens=3))

    cm = ContextManager(window=4_000, token_counter=counter)
    agent = Agent(FunctionModel(model), capabilities=[cm])
    history = agent.run_sync("hello").all_messages()
    history = agent.run_sync("hello again", message_history=history).all_messages()
    answer = history[1].parts[0]
    assert isinstance(answer, TextPart)
    answer.content = "expanded " * 2_300  # ~5,200 tokens: more than the window
    agent.run_sync("and now?", message_history=history)
    assert max(sent) <= 4_000 - 4_000 // 50, sent  # before, 5,200 tokens went to a 4,000-token window


def test_compact_now_measures_a_message_edited_in_place() -> None:
    """`cm.compact_now(history)` after an edit in place: its summary request was sized from the old
    content, and 6,441 tokens went to a 4,000-token window."""
    import asyncio

    sent: list[int] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        size = chars(messages) // 4 + 4 * len(messages)
        sent.append(size)
        return ModelResponse(parts=[TextPart("<summary>sum</summary>" if size > 1_500 else "short answer")],
                             usage=RequestUsage(input_tokens=size, output_tokens=3))

    cm = ContextManager(window=4_000, summary_model=FunctionModel(model))
    agent = Agent(FunctionModel(model), capabilities=[cm])
    history = agent.run_sync("hello " * 200).all_messages()
    history = agent.run_sync("again " * 200, message_history=history).all_messages()
    answer = history[1].parts[0]
    assert isinstance(answer, TextPart)
    answer.content = "expanded " * 2_300
    sent.clear()
    asyncio.run(cm.compact_now(history))
    assert sent and max(sent) <= 4_000, sent


class Answers:
    """An elementwise comparison's answer (as an array's is): no truth value of its own."""

    def __bool__(self) -> bool:
        raise ValueError("the truth value of an array with more than one element is ambiguous")


class Elementwise:
    """Content whose == answers element by element, as an array's does."""

    def __init__(self, values: list[int]) -> None:
        self.values = values

    def __eq__(self, other: object) -> object:  # type: ignore[override]
        return Answers()

    def __str__(self) -> str:
        return " ".join(map(str, self.values))


def test_content_that_does_not_compare_as_a_bool_is_taken_as_changed() -> None:
    part = UserPromptPart("x")
    m = ModelRequest(parts=[part])
    part.content = Elementwise([1, 2, 3])  # type: ignore[assignment]
    forget_changed([m])
    part.content = Elementwise([1, 2, 3])  # type: ignore[assignment]
    forget_changed([m])  # raised "truth value of an array is ambiguous" in every request
    tokens.message_tokens(m)
