"""`load_layer_state` given the saved JSON text instead of the state it holds, or a conversation id that
is no id, is refused in one line naming the fix.

A program that saved `json.dumps(cm.layer_state())` and passed the file's text back
(`cm.load_layer_state(path.read_text())`, `json.loads` forgotten) was told only "the saved layer
decisions are not a JSON object; every layer starts afresh", a warning on a logger: every restart lost
the layers' decisions, and with them the provider's cached prefix, while the text it passed held them
all. A `conversation_id` that is not text (`conversation_id=42`) was kept under that key, which no run's
id (text) ever matches: the state was never applied, with no word at all. A damaged state (text that
holds no JSON object) is still a warning, not an error (test_damaged_saved_state_said.py)."""

from __future__ import annotations

import json
import logging

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import ContextManager


def ok(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart("ok")])


def saved_text() -> str:
    cm = ContextManager(window=64_000)
    Agent(FunctionModel(ok), capabilities=[cm]).run_sync("hi")
    return json.dumps(cm.layer_state())


@pytest.mark.parametrize("as_bytes", [False, True], ids=["str", "bytes"])
def test_the_saved_json_text_is_refused_naming_json_loads(as_bytes: bool) -> None:
    text = saved_text()
    with pytest.raises(TypeError) as caught:
        ContextManager(window=64_000).load_layer_state(text.encode() if as_bytes else text)  # type: ignore[arg-type]
    kind = "bytes" if as_bytes else "str"
    assert str(caught.value) == (f"load_layer_state takes the state layer_state() returned (a dict), not its JSON "
                                 f"text ({kind}): pass json.loads(text)")


def test_the_state_it_holds_is_taken_without_a_word(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="compact_agent.context"):
        ContextManager(window=64_000).load_layer_state(json.loads(saved_text()))
    assert [r.getMessage() for r in caplog.records] == []


def test_a_conversation_id_that_is_not_text_is_refused() -> None:
    with pytest.raises(TypeError) as caught:
        ContextManager(window=64_000).load_layer_state({}, conversation_id=42)  # type: ignore[arg-type]
    assert str(caught.value) == ("load_layer_state: conversation_id must be the conversation's id, a str "
                                 "(as the run's conversation_id), not int")
