"""A restarted manager counts as freed only what its own requests decide.

The layers' frozen decisions are re-applied by the manager of a restarted session
(`load_layer_state`), and its first view counted every one of them as new: the event of a
clearing it decided said the tokens of every result cleared before the restart too, and
`layer_savings` held them again. `layer_state()` now carries what the latest view kept out, the
figure a restart counts from.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import CompactionSettings, ContextManager, Event, MicrocompactEvent
from compact_agent.context.wiring import Internals

# Unpriced microcompact on its count trigger: with more than one live result it clears every
# result the model has seen, once together they free 1,000 tokens.
SETTINGS = CompactionSettings(priced_compaction=False, microcompact_keep_recent=0, microcompact_trigger=1,
                              microcompact_min_free_tokens=1_000, collapse_enabled=False, memory_enabled=False,
                              compaction_records=False)


def call(n: int, chars: int) -> list[ModelMessage]:
    """The model runs a command and its result (`chars` long) comes back."""
    return [ModelResponse(parts=[ToolCallPart("bash", {"command": f"step {n}"}, tool_call_id=f"call_{n}")]),
            ModelRequest(parts=[ToolReturnPart("bash", f"{n}\n" * (chars // 2), tool_call_id=f"call_{n}")])]


def turn_end(prompt: str) -> list[ModelMessage]:
    return [ModelResponse(parts=[TextPart("done")]), ModelRequest(parts=[UserPromptPart(prompt)])]


# A large result (~2,000 tokens) cleared before the restart, two small ones (~600 each) after it.
BEFORE: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("show the numbers")]),
                              *call(1, 8_000), *call(2, 2_400), *call(3, 2_400)]
AFTER = [*BEFORE, *turn_end("thanks")]


def manager(saved: list[dict[str, Any]] | None = None) -> tuple[ContextManager, list[Event]]:
    events: list[Event] = []
    cm = ContextManager.wired(Internals(save_state=saved.append if saved is not None else None), window=32_000,
                              settings=SETTINGS, event_handler=events.append)
    return cm, events


def cleared(events: list[Event]) -> list[MicrocompactEvent]:
    return [e for e in events if isinstance(e, MicrocompactEvent)]


def restarted(state: dict[str, Any]) -> tuple[ContextManager, list[Event]]:
    cm, events = manager()
    cm.load_layer_state(json.loads(json.dumps(state)))  # as read back from the session's file
    return cm, events


def test_a_restarted_manager_counts_only_what_its_own_requests_clear() -> None:
    cm, events = manager()
    for end in (5, 7):  # the request after the second result, then after the third
        cm.shape(list(BEFORE[:end]))
    [large] = cleared(events)
    assert large.ids == ["call_1"] and large.tokens_freed > 1_900

    again, events = restarted(cm.layer_state())
    again.shape(list(AFTER))
    [small] = cleared(events)
    assert small.ids == ["call_2", "call_3"]
    assert 1_000 <= small.tokens_freed < large.tokens_freed  # the two small results, without the large one
    assert again.layer_savings["microcompact"] == small.tokens_freed
    assert again.view_savings["microcompact"] > large.tokens_freed  # the request still leaves all three out

    third, events = restarted(again.layer_state())  # nothing new to decide: nothing freed
    third.shape([*AFTER, *turn_end("bye")])
    assert not cleared(events) and third.layer_savings.get("microcompact", 0) == 0


async def test_a_restart_after_a_compaction_counts_from_the_compacted_history() -> None:
    """A compaction saves the decisions it leaves at once: a restart before the next request
    counted from what the layers kept out of the history before it, and a clearing of the
    compacted history's results then said nothing (its saving less the old one is below 0)."""

    def summary(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart("<summary>the numbers were shown</summary>")])

    talk = [m for n in range(6) for m in (ModelResponse(parts=[TextPart(f"about {n} " * 400)]),
                                          ModelRequest(parts=[UserPromptPart(f"and {n}?")]))]
    history = [*BEFORE, *talk]
    saved: list[dict[str, Any]] = []
    cm, events = manager(saved)
    for shown in (BEFORE[:5], BEFORE, history):  # each request saves the decisions it leaves
        await cm.prepare_view(list(shown))
    assert {tuple(e.ids) for e in cleared(events)} == {("call_1",), ("call_2", "call_3")}
    compacted = await cm.compact_now(history, model=FunctionModel(summary))

    again, events = restarted(saved[-1])  # the process ends here, before another request
    again.shape([*compacted, *call(4, 2_400), *call(5, 2_400), *turn_end("and?")])
    [now] = cleared(events)
    assert now.ids == ["call_4", "call_5"] and 1_000 <= now.tokens_freed < 2_000
