"""`cm.resume(history)` on a store that can say what it holds (`load_messages()`) asks it. A new
store is given the history, in one `append`, so a conversation moves into it whole; a store that
holds only the history's beginning is given the rest; a store that holds another conversation, or
more than the history, is refused in one line and nothing is written. The caller used to be
believed: a fresh store then held only the messages after the resume, the earlier ones never
written, and nothing said so."""

from __future__ import annotations

import errno
from collections.abc import Sequence

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart
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
        "resume(): the store (Counted) holds another conversation than the history given (message 1 of its 2 "
        "messages differs): pass what the store holds (resume() with no argument reads it), or give this history "
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
