"""A tool result's or call's dict content edited in place between runs (the same dict, a value
inside it changed, however deep) is measured again: the size memo took the message at its old size,
and requests of ~11,000 tokens went to an 8,000-token window with no event."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from compact_agent.context import ContextManager
from compact_agent.context.plumbing import tokens
from compact_agent.context.plumbing.identity_memo import forget_changed
from compact_agent.context.testing import reply_to_library_request

WINDOW = 8_000
BIG = "lorem ipsum dolor " * 2_500  # ~11,000 tokens


def size(messages: list[ModelMessage]) -> int:
    """The request's size as the library counts it, afresh: no memo."""
    return sum(tokens.PER_MESSAGE_OVERHEAD + sum(tokens.part_tokens(p) for p in m.parts) for m in messages)


def grow_body(content: Any) -> None:
    content["body"] += BIG


def grow_nested(content: Any) -> None:
    content["doc"]["pages"][0] += BIG


def grow_list(content: Any) -> None:
    content["doc"]["pages"].append(BIG)


@pytest.mark.parametrize("edit", [grow_body, grow_nested, grow_list])
@pytest.mark.parametrize("where", ["result", "call"])
def test_a_request_after_an_edit_in_place_stays_in_the_window(
        edit: Callable[[Any], None], where: str) -> None:
    sent: list[int] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        usage = RequestUsage(input_tokens=size(messages) + 50, output_tokens=5)
        if (reply := reply_to_library_request(messages, usage=usage)) is not None:
            return reply
        sent.append(size(messages))
        if len(sent) == 1:
            return ModelResponse(parts=[ToolCallPart("fetch", {"body": "short", "doc": {"pages": ["p1"]}})],
                                 usage=usage)
        return ModelResponse(parts=[TextPart("ok")], usage=usage)

    events: list[Any] = []
    cm = ContextManager(window=WINDOW, event_handler=events.append)
    agent = Agent(FunctionModel(model), capabilities=[cm])

    @agent.tool_plain
    def fetch(body: str, doc: dict[str, list[str]]) -> dict[str, Any]:
        """Fetch a record."""
        return {"id": 1, "body": body, "doc": {"pages": list(doc["pages"])}}

    history = agent.run_sync("please fetch the record").all_messages()
    kind = ToolReturnPart if where == "result" else ToolCallPart
    part = next(p for m in history for p in m.parts if isinstance(p, kind))
    edit(part.content if isinstance(part, ToolReturnPart) else part.args)
    assert size(history) > WINDOW  # the edit alone is more than the window
    for turn in range(2):
        agent.run_sync(f"anything else? ({turn})", message_history=history)
    assert len(sent) == 4 and max(sent) <= WINDOW, sent  # before: [.., 11_27x, 11_27x] and no event
    assert events


def test_content_edited_inside_is_measured_again_and_unchanged_content_is_kept() -> None:
    content: dict[str, Any] = {"id": 1, "doc": {"pages": ["short"]}}
    m = ModelRequest(parts=[ToolReturnPart("fetch", content, tool_call_id="c1")])
    forget_changed([m])
    before = tokens.message_tokens(m)
    forget_changed([m])  # nothing changed: the memo is kept
    assert tokens.message_tokens(m) == before
    content["doc"]["pages"][0] = "x" * 4_000
    forget_changed([m])
    assert tokens.message_tokens(m) == size([m]) > before + 900
