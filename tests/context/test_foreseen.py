"""`shaping.foreseen`: what the layers would decide for the next request that no request has made
yet, with the figures that request then says, changing nothing. The REPL says it at a turn's end,
when the toolbar's figure (a look at that request) drops: said only from the request's own events,
the line came a turn after the figure (tests/ui/test_freed_with_its_figure.py)."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.context import CompactionSettings, ContextManager, Event
from compact_agent.context.layers.order import default_layers
from compact_agent.context.shaping import foreseen
from compact_agent.context.wiring import Internals

from .test_view_preview import Folders


def _said(events: list[Event]) -> list[tuple[str, str, list[str], int]]:
    return [(e.layer, e.action, e.ids, e.tokens_freed) for e in events if e.tokens_freed]


def test_the_decisions_foreseen_are_those_the_next_request_makes(tmp_path: Path) -> None:
    settings = CompactionSettings(memory_enabled=False)
    events: list[Event] = []
    cm = ContextManager.wired(Internals(layers=default_layers(settings, Folders(tmp_path))), window=64_000,
                              settings=settings, event_handler=events.append)
    history: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("print the log")]),
        ModelResponse(parts=[ToolCallPart("bash", {"command": "cat big.log"}, tool_call_id="call_1")]),
        ModelRequest(parts=[ToolReturnPart("bash", "a log line\n" * 8_000, tool_call_id="call_1")]),
    ]
    state = json.dumps(cm.layer_state(), sort_keys=True)

    ahead = foreseen(cm, list(history))

    assert _said(ahead) and ahead[0].ids == ["call_1"], ahead
    assert json.dumps(cm.layer_state(), sort_keys=True) == state  # nothing decided…
    assert events == [] and cm.layer_savings == {} and not (tmp_path / "tool-results").exists()  # …said or written
    cm.shape(list(history))
    assert _said(events) == _said(ahead)  # the request makes them, and says the same figures
    assert foreseen(cm, list(history)) == []  # made: none left to foresee
