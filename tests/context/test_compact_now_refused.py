"""A `compact_now` that does not go ahead changes nothing the caller can observe.

It shapes the view the summary request sends (L1-L4 decide, as a request's layers do). Those
decisions are committed only when the compaction goes ahead: blocked by `before_compact`, declined
at the preview, refused as nothing to compact or failed at the summary request, it leaves no
decision frozen, no spill file or collapse log written, no saving counted and no view-layer event,
and the next request's view and events are those of a manager that was never asked.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.exceptions import ModelHTTPError
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

from compact_agent.context import (
    CompactionBlocked,
    CompactionError,
    CompactionSettings,
    ContextManager,
    Event,
    InMemoryStore,
    NotSmaller,
)
from compact_agent.context.layers.budget import ToolResultBudget
from compact_agent.context.layers.collapse import ContextCollapse, read_log
from compact_agent.context.plumbing.events import Budget
from compact_agent.context.plumbing.tokens import estimate
from compact_agent.context.shaping import preview
from compact_agent.context.testing import reply_to_library_request
from tests.context.strategies import BASE, Conv, big_text

VIEW_LAYERS = {"budget", "snip", "microcompact", "collapse"}


class FolderStore(InMemoryStore):
    """The in-memory store with side folders: L1 spills to `tool-results`, L4 logs to `collapse`."""

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.dir = root

    def side_dir(self, name: str) -> Path:
        return self.dir / name


def history() -> list[ModelMessage]:
    """Two turns; the first read a log far over the tool-result budget (L1 spills it)."""
    return [
        ModelRequest(parts=[UserPromptPart("print the build log")]),
        ModelResponse(parts=[ToolCallPart("bash", {"command": "cat build.log"}, tool_call_id="call_1")]),
        ModelRequest(parts=[ToolReturnPart("bash", "a build log line\n" * 8_000, tool_call_id="call_1")]),
        ModelResponse(parts=[TextPart("The build passed.")]),
        ModelRequest(parts=[UserPromptPart("and the tests?")]),
        ModelResponse(parts=[ToolCallPart("bash", {"command": "make test"}, tool_call_id="call_2")]),
        ModelRequest(parts=[ToolReturnPart("bash", "412 passed", tool_call_id="call_2")]),
        ModelResponse(parts=[TextPart("All 412 tests pass.")]),
    ]


def summarizes(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    reply = reply_to_library_request(messages, "Read the build log; the tests pass.")
    assert reply is not None
    return reply


def fails(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    raise ModelHTTPError(503, "fake", "overloaded")


async def block(trigger: str, instructions: str) -> str:
    raise CompactionBlocked("the release is being cut")


def manager(root: Path, events: list[Event], **options: Any) -> ContextManager:
    return ContextManager(window=64_000, store=FolderStore(root), event_handler=events.append, **options)


def texts(messages: list[ModelMessage]) -> list[list[object]]:
    return [[getattr(p, "content", None) for p in m.parts] for m in messages]


def seen(events: list[Event]) -> list[tuple[str, str, list[str], int | None]]:
    return [(e.layer, e.action, list(e.ids), e.freed) for e in events if e.layer in VIEW_LAYERS]


REFUSALS: dict[str, tuple[dict[str, Any], dict[str, Any], type[Exception], int]] = {
    "blocked by before_compact": ({"before_compact": block}, {"model": FunctionModel(summarizes)},
                                  CompactionBlocked, 8),
    "declined at the preview": ({}, {"model": FunctionModel(summarizes), "confirm": lambda result: False},
                                CompactionBlocked, 8),
    "the summary request fails": ({}, {"model": FunctionModel(fails)}, ModelHTTPError, 8),
    # One round: the newest is kept verbatim, and with the log in it the result would be no smaller.
    "nothing it could shrink": ({}, {"model": FunctionModel(summarizes)}, NotSmaller, 3),
}


@pytest.mark.parametrize("case", list(REFUSALS))
async def test_a_refused_compact_now_freezes_no_decision_and_writes_nothing(tmp_path: Path, case: str) -> None:
    options, call, raised, length = REFUSALS[case]
    events: list[Event] = []
    cm = manager(tmp_path, events, **options)
    messages = history()[:length]
    state = json.dumps(cm.layer_state(), sort_keys=True)
    looked = preview(cm, list(messages))
    assert looked.savings["budget"] > 0  # the summary request's view spills the log

    with pytest.raises(raised):
        await cm.compact_now(messages, **call)

    assert json.dumps(cm.layer_state(), sort_keys=True) == state  # no decision frozen
    assert not (tmp_path / "tool-results").exists() and not (tmp_path / "collapse").exists()  # no side file
    assert cm.layer_savings == {} and cm.view_savings == {}  # no saving counted
    assert seen(events) == []  # no event claims a shaping happened
    store = cm.store
    assert isinstance(store, FolderStore)
    assert store.messages == messages and store.boundaries == [] and cm.compactions == []

    # The next request decides, counts and reports as the first request of a manager never asked.
    sent, _ = cm.shape(list(messages))
    fresh_events: list[Event] = []
    fresh = manager(tmp_path, fresh_events)
    fresh_sent, _ = fresh.shape(list(messages))
    assert sent == fresh_sent == looked.messages
    assert seen(events) == seen(fresh_events) != []
    assert cm.layer_savings == fresh.layer_savings and cm.layer_state() == fresh.layer_state()


async def test_an_empty_history_is_nothing_to_compact(tmp_path: Path) -> None:
    events: list[Event] = []
    cm = manager(tmp_path, events)
    with pytest.raises(CompactionError, match="nothing to compact"):
        await cm.compact_now([], model=FunctionModel(summarizes))
    assert cm.layer_savings == {} and events == []


async def test_a_compact_now_that_goes_ahead_commits_the_view_its_summary_read(tmp_path: Path) -> None:
    """Gone ahead, the shaping the summary request sent is committed as a request's is: the spill
    file its preview names is written, and its events come before the compaction's."""
    events: list[Event] = []
    cm = manager(tmp_path, events)
    messages = history()
    looked = preview(cm, list(messages))
    shown = looked.messages[2].parts[0]
    assert isinstance(shown, ToolReturnPart)

    new = await cm.compact_now(messages, model=FunctionModel(summarizes))

    spilled = [p for p in (tmp_path / "tool-results").iterdir() if p.is_file()]  # `.by-content`: the texts linked
    assert len(spilled) == 1 and str(spilled[0]) in str(shown.content)
    assert spilled[0].read_text(encoding="utf-8") == "a build log line\n" * 8_000
    layers = [e.layer for e in events]
    assert layers.index("budget") < layers.index("compact")
    assert cm.layer_savings["budget"] == looked.savings["budget"]
    store = cm.store
    assert isinstance(store, FolderStore)
    assert store.messages == new and len(store.boundaries) == 1

    # Committed as a request's shaping commits: the same decisions, and the same next view, as a
    # manager that shaped the view for real before compacting.
    other = manager(tmp_path, [], summary_model=FunctionModel(summarizes))
    view, _ = other.shape(list(messages))
    result = await other.compact(list(messages), trigger="manual", summary_input=view)
    assert view == looked.messages and texts(result.messages) == texts(new)
    assert other.layer_state() == cm.layer_state() and other.layer_savings == cm.layer_savings
    assert other.shape(list(new)) == cm.shape(list(new))  # the next view and whether collapse holds


def test_a_collapse_decided_on_a_copy_is_logged_only_when_adopted(tmp_path: Path) -> None:
    conv = Conv(start=BASE).user("task 0: fix the parser")
    for t in range(6):
        conv.user(f"task {t + 1}").call("read_file", {"path": f"src/m{t}.py"}, big_text(f"m{t}", 4_000))
        conv.say(f"turn {t} done")
    conv.user("final task")
    threshold = estimate(conv.messages)

    def budget(threshold: int) -> Budget:
        return Budget(window=threshold * 2, threshold=threshold, tokens=estimate(conv.messages), now=BASE,
                      collapse_commit=int(threshold * 0.9), collapse_blocking=int(threshold * 0.95))

    layer = ContextCollapse(CompactionSettings(), tmp_path / "log")
    twin = layer.scratch()
    looked = twin.apply(conv.messages, budget(threshold))
    assert looked.events and looked.events[0].detail["log"] == str(tmp_path / "log")  # as the commit says it
    assert not (tmp_path / "log").exists() and layer.commits == []

    layer.adopt(twin)
    assert [c.id for c in read_log(tmp_path / "log")] == [c.id for c in layer.commits] == [c.id for c in twin.commits]
    again = layer.apply(conv.messages, budget(threshold * 2))
    assert again.messages == looked.messages  # the view the copy shaped, byte for byte


def test_a_spill_decided_on_a_copy_is_written_only_when_adopted(tmp_path: Path) -> None:
    messages = history()
    layer = ToolResultBudget(CompactionSettings(), tmp_path / "spill")
    twin = layer.scratch()
    looked = twin.apply(messages, Budget(window=64_000, threshold=50_000, tokens=estimate(messages),
                                         now=datetime.now(UTC)))
    assert not (tmp_path / "spill").exists() and layer.replacements == {}

    layer.adopt(twin)
    written = [p.read_text(encoding="utf-8") for p in (tmp_path / "spill").iterdir() if p.is_file()]
    assert written == ["a build log line\n" * 8_000]
    assert layer.state_to_json() == twin.state_to_json()
    again = layer.apply(messages, Budget(window=64_000, threshold=50_000, tokens=estimate(messages),
                                         now=datetime.now(UTC)))
    assert again.messages == looked.messages and not again.events
