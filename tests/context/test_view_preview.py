"""A look at the next request's view (`shaping.preview`, what /context and the toolbar show) is the
view the request then sends, and it decides nothing: no result spilled to a file, no decision
frozen, no saving counted, no event emitted. The request's own shaping does all of that."""

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
from compact_agent.context.shaping import preview
from compact_agent.context.wiring import Internals


class Folders:
    """A store's side folders (where L1 spills and L4 logs), without the store."""

    def __init__(self, root: Path) -> None:
        self.dir = root

    def side_dir(self, name: str) -> Path:
        return self.dir / name


def test_a_preview_is_the_view_the_request_sends_and_writes_nothing(tmp_path: Path) -> None:
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

    looked = preview(cm, list(history))

    spill = tmp_path / "tool-results"
    shown = looked.messages[-1].parts[0]
    assert isinstance(shown, ToolReturnPart) and str(spill) in str(shown.content)  # the preview names its file
    assert looked.savings["budget"] > 0
    assert not spill.exists()  # ... which only the request writes
    assert json.dumps(cm.layer_state(), sort_keys=True) == state
    assert cm.view_savings == {} and cm.layer_savings == {} and events == []

    sent, _ = cm.shape(list(history))
    assert sent == looked.messages
    assert len(list(spill.glob("*.txt"))) == 1 and events and cm.layer_savings["budget"] == looked.savings["budget"]
