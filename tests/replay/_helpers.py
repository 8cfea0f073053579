"""Shared checks for the replay tests: the validity contract every imported conversation must meet,
the parts of a conversation the tests look at, and `printed_apart` for code that may open a pipe."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
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


def printed_apart(program: str, arg: str, doing: str) -> Any:
    """The JSON `python -c program arg` prints, run in a process of its own: a pipe it opened would
    wait for a writer for ever, and fail the test (`doing` was still waiting) rather than hang the suite."""
    try:
        done = subprocess.run([sys.executable, "-c", program, arg], capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{doing} was still waiting on the pipe after 30 s")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
