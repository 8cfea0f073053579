"""Shared checks for the replay tests: the validity contract every imported conversation must meet,
and the parts of a conversation the tests look at."""

from __future__ import annotations

from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    ToolCallPart,
    ToolReturnPart,
    repair_messages,
)


def tool_calls(messages: list[ModelMessage]) -> list[ToolCallPart]:
    return [
        p for m in messages if isinstance(m, ModelResponse) for p in m.parts if isinstance(p, ToolCallPart)
    ]


def results(messages: list[ModelMessage]) -> list[ToolReturnPart]:
    return [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]


def responses(messages: list[ModelMessage]) -> list[ModelResponse]:
    return [m for m in messages if isinstance(m, ModelResponse)]


def assert_valid_conversation(messages: list[ModelMessage]) -> None:
    """Every call answered exactly once in the very next request, results first, no empty/adjacent requests."""
    assert messages, "no messages imported"
    for index, message in enumerate(messages):
        assert message.parts, f"empty message at {index}"
        if isinstance(message, ModelRequest):
            assert index == 0 or not isinstance(messages[index - 1], ModelRequest), (
                f"adjacent requests at {index}"
            )
            kinds = [isinstance(p, ToolReturnPart) for p in message.parts]
            assert kinds == sorted(kinds, reverse=True), f"tool results do not lead request {index}"
            returns = [p.tool_call_id for p in message.parts if isinstance(p, ToolReturnPart)]
            previous = messages[index - 1] if index else None
            calls = (
                [p.tool_call_id for p in previous.parts if isinstance(p, ToolCallPart)]
                if isinstance(previous, ModelResponse)
                else []
            )
            assert sorted(returns) == sorted(calls), (
                f"request {index} does not answer exactly the calls before it"
            )
        else:
            calls = [p.tool_call_id for p in message.parts if isinstance(p, ToolCallPart)]
            if calls:
                following = messages[index + 1] if index + 1 < len(messages) else None
                assert isinstance(following, ModelRequest), f"calls of response {index} are never answered"


def assert_repair_is_noop(messages: list[ModelMessage]) -> None:
    repaired = repair_messages(messages)
    assert ModelMessagesTypeAdapter.dump_json(repaired) == ModelMessagesTypeAdapter.dump_json(messages)
