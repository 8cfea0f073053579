"""`cm.resume(history)` on a store that can say what it holds (`load_messages()`) asks it. A new
store is given the history, in one `append`, so a conversation moves into it whole; a store that
holds only the history's beginning is given the rest; a store that holds something else, or more
than the history, is refused in one line and nothing is written. What the store holds is compared by
what it says, not by its form: a store may keep tool arguments parsed or timestamps to the second. The caller used to be
believed: a fresh store then held only the messages after the resume, the earlier ones never
written, and nothing said so."""

from __future__ import annotations

import dataclasses
import errno
import json
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import ContextManager, HistoryNotSaved, InMemoryStore


class Counted(InMemoryStore):
    """An `InMemoryStore` that counts its appends, and fails them while `full`."""

    def __init__(self) -> None:
        super().__init__()
        self.appends = 0
        self.full = False

    def append(self, messages: Sequence[ModelMessage]) -> None:
        if self.full:
            raise OSError(errno.ENOSPC, "No space left on device")
        self.appends += 1
        super().append(messages)


def _answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart("ok")])


def _turns(*asked: str) -> list[ModelMessage]:
    out: list[ModelMessage] = []
    for a in asked:
        out += [ModelRequest(parts=[UserPromptPart(a)]), ModelResponse(parts=[TextPart(f"answer to {a}")])]
    return out


def _said(store: InMemoryStore) -> list[object]:
    return [getattr(p, "content", None) for m in store.messages for p in m.parts]


async def test_a_conversation_resumed_on_a_new_store_is_written_into_it_whole() -> None:
    old = _turns("what I asked yesterday")
    store = Counted()
    cm = ContextManager(window=8_000, store=store)
    cm.resume(old)
    assert store.messages == old and store.appends == 1  # at once, in one append
    result = await Agent(FunctionModel(_answer), capabilities=[cm]).run("today", message_history=old)
    assert store.messages == result.all_messages() and len(store.messages) == 4
    assert _said(store)[:2] == ["what I asked yesterday", "answer to what I asked yesterday"]


async def test_a_store_that_holds_the_history_is_given_nothing_and_one_that_holds_its_beginning_the_rest() -> None:
    history = _turns("one", "two")
    store = Counted()
    store.append(history[:2])  # what it held before an append of the rest failed, say
    cm = ContextManager(window=8_000, store=store)
    cm.resume(history)
    assert store.messages == history and store.appends == 2
    cm.resume(history)  # it holds all of it now: nothing written twice
    assert store.messages == history and store.appends == 2
    result = await Agent(FunctionModel(_answer), capabilities=[cm]).run("three", message_history=history)
    assert store.messages == result.all_messages() and len(store.messages) == 6


async def test_a_store_that_holds_another_conversation_is_refused_in_one_line_and_left_as_it_was() -> None:
    store = Counted()
    mine = _turns("mine")
    store.append(mine)
    cm = ContextManager(window=8_000, store=store)
    with pytest.raises(UserError) as caught:
        cm.resume(_turns("someone else's"))
    assert str(caught.value) == (
        "resume(): what the store (Counted) holds differs from the history given at message 1 (of its 2 "
        "messages): pass what the store holds (resume() with no argument reads it), or give this history "
        "a store of its own")
    assert store.messages == mine and store.appends == 1
    # Nothing was taken for held: a run of the store's own conversation appends only what is new.
    result = await Agent(FunctionModel(_answer), capabilities=[cm]).run("more", message_history=mine)
    assert store.messages == result.all_messages() and len(store.messages) == 4


@pytest.mark.parametrize(("given", "said"), [
    (1, "resume(): the store (Counted) holds 4 messages, the history given only its first 2: pass what the store "
        "holds (resume() with no argument reads it), or run with the shorter history without resume(), which "
        "archives what the store held and rewrites it"),
    (0, "resume([]): the store (Counted) is not new, it holds 4 messages: pass what the store holds (resume() "
        "with no argument reads it), or give this conversation a new store"),
])
def test_a_store_that_holds_more_than_the_history_is_refused(given: int, said: str) -> None:
    store = Counted()
    store.append(_turns("one", "two"))
    with pytest.raises(UserError) as caught:
        ContextManager(window=8_000, store=store).resume(store.messages[:2 * given])
    assert str(caught.value) == said and len(store.messages) == 4


async def test_a_store_that_cannot_take_the_history_on_resume_raises_ours_and_is_read_again() -> None:
    old = _turns("yesterday")
    store = Counted()
    store.full = True
    cm = ContextManager(window=8_000, store=store)
    with pytest.raises(HistoryNotSaved) as caught:
        cm.resume(old)
    assert caught.value.step == "append" and caught.value.messages == old and store.messages == []
    store.full = False  # the next run reads the store again, and saves what it lacks
    result = await Agent(FunctionModel(_answer), capabilities=[cm]).run("today", message_history=old)
    assert store.messages == result.all_messages() and len(store.messages) == 4


class KeptInItsOwnForm(Counted):
    """Gives back what it holds as a database would: tool arguments parsed (a JSON column), or
    timestamps to the second with no run ids, usage or provider details, or both."""

    def __init__(self, parsed: bool = True, seconds: bool = True) -> None:
        super().__init__()
        self.parsed, self.seconds = parsed, seconds

    def load_messages(self) -> list[ModelMessage]:
        rows: list[dict[str, Any]] = ModelMessagesTypeAdapter.dump_python(self.messages, mode="json")
        for m in rows:
            for p in m["parts"]:
                if self.parsed and p["part_kind"] == "tool-call" and isinstance(p["args"], str):
                    p["args"] = json.loads(p["args"])
                if self.seconds and "timestamp" in p:
                    p["timestamp"] = p["timestamp"][:19] + "Z"
            if self.seconds:
                m["timestamp"] = m["timestamp"][:19] + "Z"
                for dropped in ("run_id", "usage", "provider_details", "model_name"):
                    m.pop(dropped, None)
        return ModelMessagesTypeAdapter.validate_python(rows)


def _look_then_answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if isinstance(messages[-1].parts[-1], UserPromptPart):  # as OpenAI sends them: arguments as a JSON string
        return ModelResponse(parts=[ToolCallPart("look", '{"x": 1}', tool_call_id="call_1")],
                             provider_details={"finish": "tool_calls"})
    return ModelResponse(parts=[TextPart("done")])


def _looking_agent(cm: ContextManager) -> Agent[None, str]:
    agent = Agent(FunctionModel(_look_then_answer), capabilities=[cm])

    @agent.tool_plain
    def look(x: int) -> str:
        return f"seen {x}"

    return agent


@pytest.mark.parametrize(("parsed", "seconds"), [(True, False), (False, True), (True, True)],
                         ids=["arguments-parsed", "timestamps-to-the-second", "both"])
async def test_a_store_that_gives_the_conversation_back_in_its_own_form_holds_it(parsed: bool, seconds: bool) -> None:
    store = KeptInItsOwnForm(parsed, seconds)
    history = (await _looking_agent(ContextManager(window=8_000, store=store)).run("one")).all_messages()
    assert store.load_messages() != history
    appends = store.appends
    cm = ContextManager(window=8_000, store=store)
    cm.resume(history)  # the app kept the history as pydantic-ai gave it, the store in its own form
    assert store.appends == appends
    result = await _looking_agent(cm).run("two", message_history=history)
    assert store.messages == result.all_messages() and len(store.messages) == 8
    assert store.archives == []  # the new turn appended, nothing archived and rewritten


def _part(i: int, j: int, change: Callable[[Any], Any]) -> Callable[[list[ModelMessage]], list[ModelMessage]]:
    def changed(history: list[ModelMessage]) -> list[ModelMessage]:
        m: Any = history[i]
        return [*history[:i], dataclasses.replace(m, parts=[change(p) if k == j else p for k, p in enumerate(m.parts)]),
                *history[i + 1:]]
    return changed


@pytest.mark.parametrize(("change", "at"), [
    (_part(1, 0, lambda p: dataclasses.replace(p, args='{"x": 2}')), 2),
    (_part(1, 0, lambda p: dataclasses.replace(p, args={"x": 2})), 2),
    (_part(1, 0, lambda p: dataclasses.replace(p, tool_name="glance")), 2),
    (_part(1, 0, lambda p: dataclasses.replace(p, tool_call_id="call_2")), 2),
    (_part(1, 0, lambda p: TextPart("I will look")), 2),
    (_part(2, 0, lambda p: dataclasses.replace(p, content="seen 2")), 3),
    (_part(3, 0, lambda p: dataclasses.replace(p, content="done, and more")), 4),
], ids=["arguments-as-text", "arguments-parsed", "tool", "call-id", "text-for-a-call", "tool-result", "answer"])
async def test_a_store_whose_conversation_says_something_else_is_refused_where_it_differs(
        change: Callable[[list[ModelMessage]], list[ModelMessage]], at: int) -> None:
    store = KeptInItsOwnForm()
    history = (await _looking_agent(ContextManager(window=8_000, store=store)).run("one")).all_messages()
    held, appends = list(store.messages), store.appends
    with pytest.raises(UserError) as caught:
        ContextManager(window=8_000, store=store).resume(change(history))
    assert f"differs from the history given at message {at} (of its 4 messages)" in str(caught.value)
    assert store.messages == held and store.appends == appends


async def test_a_store_in_its_own_form_that_holds_more_than_the_history_is_refused() -> None:
    store = KeptInItsOwnForm()
    history = (await _looking_agent(ContextManager(window=8_000, store=store)).run("one")).all_messages()
    with pytest.raises(UserError) as caught:
        ContextManager(window=8_000, store=store).resume(history[:2])
    assert "holds 4 messages, the history given only its first 2" in str(caught.value) and len(store.messages) == 4


async def test_a_new_manager_on_a_store_in_its_own_form_appends_only_the_new_turn() -> None:
    store = KeptInItsOwnForm()
    history = (await _looking_agent(ContextManager(window=8_000, store=store)).run("one")).all_messages()
    # No resume(): the first request reads the store, and finds the history in it.
    result = await _looking_agent(ContextManager(window=8_000, store=store)).run("two", message_history=history)
    assert store.messages == result.all_messages() and len(store.messages) == 8
    assert store.archives == []  # it used to be taken for a changed history: archived and rewritten
