"""A result a compaction keeps because the model still uses it is sent whole after the compaction.
Microcompact's clearing of it stayed in force (its decisions are frozen per call id), so the kept
copy went out as "[Old tool result content cleared]": paid for as kept, and of no use to the model."""

from __future__ import annotations

from datetime import UTC, datetime

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart

from compact_agent.context.layers.microcompact import CLEARED, Microcompact
from compact_agent.context.plumbing.markers import KEY
from compact_agent.context.plumbing.settings import CompactionSettings

from .strategies import budget_for

KEPT = {KEY: {"synthetic": "kept"}}


def exchange(call_id: str, text: str, metadata: dict | None = None) -> list[ModelMessage]:
    return [ModelResponse(parts=[ToolCallPart("bash", {"command": call_id}, tool_call_id=call_id)], metadata=metadata),
            ModelRequest(parts=[ToolReturnPart("bash", text, tool_call_id=call_id)], metadata=metadata)]


def sent(messages: list[ModelMessage], call_id: str) -> object:
    return next(p.content for m in messages if isinstance(m, ModelRequest) for p in m.parts
                if isinstance(p, ToolReturnPart) and p.tool_call_id == call_id)


def test_a_result_the_compaction_kept_is_no_longer_cleared() -> None:
    layer = Microcompact(CompactionSettings())
    layer.cleared = {"build": "time", "tail": "time", "gone": "time"}
    # after the compaction: the summary, the build log it kept for the model, the verbatim tail
    history: list[ModelMessage] = [ModelRequest(parts=[]), *exchange("build", "error: x.c:3", KEPT),
                                   *exchange("tail", "ls output")]
    layer.forget_absent(history)
    assert layer.cleared == {"tail": "time"}  # the tail's clearing stands; the kept one's and the gone one's go
    view = layer.apply(history, budget_for(history, datetime(2026, 1, 1, tzinfo=UTC))).messages
    assert sent(view, "build") == "error: x.c:3" and sent(view, "tail") == CLEARED
