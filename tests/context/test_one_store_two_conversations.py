"""Two managers given one store (`store=`), each for a conversation of its own.

The second manager read the store at its first request, found the first conversation there, took
its own history for an edited one, archived the first's and rewrote the store with its own; the
first manager's next run then appended onto the second's history, with no event on its side and no
error anywhere: one store, two conversations mixed. The messages a store holds name their
conversation, so the second run is refused before anything is written or sent."""

from __future__ import annotations

import dataclasses

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import ContextManager, Event, InMemoryStore


def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    prompt = next(p.content for p in messages[-1].parts if isinstance(p, UserPromptPart))
    return ModelResponse(parts=[TextPart(f"answer to {prompt}")])


def agent_on(store: InMemoryStore, events: list[Event]) -> Agent[None, str]:
    return Agent(FunctionModel(answer), capabilities=[ContextManager(window=8_000, store=store,
                                                                     event_handler=events.append)])


async def test_a_second_conversation_on_the_store_of_another_is_refused() -> None:
    store = InMemoryStore()
    seen_a: list[Event] = []
    seen_b: list[Event] = []
    a, b = agent_on(store, seen_a), agent_on(store, seen_b)
    first = await a.run("hello A", conversation_id="A")
    with pytest.raises(UserError) as refused:
        await b.run("hello B", conversation_id="B")
    said = str(refused.value)
    assert said == ("the store (InMemoryStore) holds 2 messages of conversation 'A', and this run, of 'B', was given "
                    "no message_history: it would replace them with its new prompt alone; to go on with that "
                    "conversation, pass the history the store holds (message_history=store.load_messages()); for "
                    "another, give each conversation (each ContextManager) a store of its own")
    assert "\n" not in said
    assert store.messages == first.all_messages() and store.archives == [] and store.boundaries == []
    assert [e for e in seen_b if e.layer == "store"] == []

    again = await a.run("again A", message_history=first.all_messages())
    assert store.messages == again.all_messages() and {m.conversation_id for m in store.messages} == {"A"}
    assert [e for e in seen_a if e.layer == "store"] == []


async def test_the_same_conversation_under_a_new_id_goes_on() -> None:
    """A history sent through a UI's message format comes back without its id, and the run takes a
    new one: the store holds that very conversation, so a new manager on it goes on from it."""
    store = InMemoryStore()
    first = await agent_on(store, []).run("hello", conversation_id="A")
    without_ids = [dataclasses.replace(m, conversation_id=None) for m in first.all_messages()]
    seen: list[Event] = []
    second = await agent_on(store, seen).run("and then", message_history=without_ids, conversation_id="A2")
    assert len(store.messages) == 4 and store.archives == []
    assert [e for e in seen if e.layer == "store"] == []
    assert str(second.output) == "answer to and then"


async def test_a_store_that_keeps_no_ids_is_not_refused() -> None:
    """Messages that name no conversation cannot be told apart: the history is taken as given (an
    edited history, rewritten after the store's archive), as before. (A run given no history at all
    is refused whatever the store's messages name: test_resume_without_history.py.)"""
    store = InMemoryStore()
    first = await agent_on(store, []).run("hello", conversation_id="A")
    store.messages = [dataclasses.replace(m, conversation_id=None) for m in first.all_messages()]
    b = await agent_on(InMemoryStore(), []).run("hello B", conversation_id="B")
    seen: list[Event] = []
    await agent_on(store, seen).run("and then B", message_history=b.all_messages())
    assert [e.action for e in seen if e.layer == "store"] == ["replaced"]
