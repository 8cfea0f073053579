"""A run of a conversation its store holds, started without the history (no `message_history=`).

A program that opened its store in a new process and ran `agent.run("next question",
conversation_id=<the stored one>)` without `message_history=` had its store's whole history
replaced by the one new prompt: the old history went to the archive, a `store` / `replaced` event was
the only sign, and the run answered as if the conversation were new. Such a run is refused now, in
one line that says what the store holds and how to go on, before any request is sent and before
anything is archived or rewritten. A regenerated first answer (the same first prompt), a branch and
a continued conversation are as before."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import ContextManager, Event, HistoryStore, InMemoryStore
from compact_agent.session.store import SessionStore


class Counted:
    """A model that answers each prompt by its text and counts the requests that reached it."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.calls += 1
        prompt = next(p.content for p in messages[-1].parts if isinstance(p, UserPromptPart))
        return ModelResponse(parts=[TextPart(f"answer to {prompt}")])


def agent_on(store: HistoryStore, model: Counted, events: list[Event]) -> Agent[None, str]:
    cm = ContextManager(window=8_000, store=store, event_handler=events.append)
    return Agent(FunctionModel(model), capabilities=[cm])


def said(store: SessionStore) -> list[tuple[str, str]]:
    """What the stored messages say, part by part (a new process reads them back)."""
    return [(type(p).__name__, str(getattr(p, "content", ""))) for m in store.load_messages() for p in m.parts]


async def test_a_new_process_that_runs_without_the_history_is_refused(tmp_path: Path) -> None:
    first_model = Counted()
    store = SessionStore(tmp_path, "s1")
    first = await agent_on(store, first_model, []).run("hello", conversation_id="conv-42")
    second = await agent_on(store, first_model, []).run("and then", message_history=first.all_messages())
    held = said(store)
    assert len(store.load_messages()) == 4 and first_model.calls == 2

    # A new process: a new store object on the same file, a new manager, the same conversation id.
    model, seen = Counted(), list[Event]()
    reopened = SessionStore(tmp_path, "s1")
    with pytest.raises(UserError) as refused:
        await agent_on(reopened, model, seen).run("next question", conversation_id="conv-42")
    line = str(refused.value)
    assert line == ("the store (SessionStore) holds 4 messages of conversation 'conv-42', and this run of it was "
                    "given no message_history: it would replace them with its new prompt alone; to go on with that "
                    "conversation, pass the history the store holds (message_history=store.load_messages()); to "
                    "start anew, give the new conversation a store of its own")
    assert "\n" not in line
    assert model.calls == 0
    assert said(reopened) == held and reopened.archives() == []
    assert [e for e in seen if e.layer == "store"] == []

    # Told so, the program goes on from what the store holds: appended, nothing replaced.
    again = await agent_on(reopened, model, seen).run("next question", message_history=reopened.load_messages())
    assert model.calls == 1 and again.output == "answer to next question"
    assert said(reopened) == [*held, ("UserPromptPart", "next question"), ("TextPart", "answer to next question")]
    assert reopened.archives() == [] and [e for e in seen if e.layer == "store"] == []
    assert second.all_messages()[0].conversation_id == "conv-42"


async def test_the_same_manager_run_again_without_the_history_is_refused() -> None:
    """In one process too: the manager holds the conversation, the second run was given none of it."""
    store, model, seen = InMemoryStore(), Counted(), list[Event]()
    agent = agent_on(store, model, seen)
    first = await agent.run("hello", conversation_id="A")
    with pytest.raises(UserError) as refused:
        await agent.run("next question", conversation_id="A")
    assert str(refused.value) == (
        "the store (InMemoryStore) holds 2 messages of conversation 'A', and this run of it was given no "
        "message_history: it would replace them with its new prompt alone; to go on with that conversation, pass "
        "the history the store holds (message_history=store.load_messages()); to start anew, give the new "
        "conversation a store of its own")
    assert model.calls == 1
    assert store.messages == first.all_messages() and store.archives == [] and store.boundaries == []
    assert [e for e in seen if e.layer == "store"] == []
    again = await agent.run("next question", message_history=store.load_messages())
    assert store.messages == again.all_messages() and len(store.messages) == 4 and store.archives == []


async def test_a_store_that_names_no_conversation_is_refused_too() -> None:
    """Messages that keep no conversation id: whichever conversation they are, a run given none of
    them would replace them all."""
    store = InMemoryStore()
    first = await agent_on(store, Counted(), []).run("hello", conversation_id="A")
    store.messages = [dataclasses.replace(m, conversation_id=None) for m in first.all_messages()]
    kept = list(store.messages)
    model = Counted()
    with pytest.raises(UserError) as refused:
        await agent_on(store, model, []).run("next question", conversation_id="A")
    assert str(refused.value).startswith("the store (InMemoryStore) holds 2 messages, which name no conversation, "
                                         "and this run of it was given no message_history: ")
    assert model.calls == 0 and store.messages == kept and store.archives == []


async def test_a_regenerated_first_answer_still_replaces() -> None:
    """The same first prompt again, without history: the first answer asked for anew, as before."""
    store, seen = InMemoryStore(), list[Event]()
    agent = agent_on(store, Counted(), seen)
    first = await agent.run("hello", conversation_id="A")
    await agent.run("and then", message_history=first.all_messages())
    await agent.run("hello", conversation_id="A")
    assert [e.action for e in seen if e.layer == "store"] == ["replaced"]
    assert len(store.archives) == 1 and len(store.archives[0]) == 4 and len(store.messages) == 2


async def test_a_branch_still_replaces_and_a_continued_conversation_appends() -> None:
    store, seen = InMemoryStore(), list[Event]()
    agent = agent_on(store, Counted(), seen)
    first = await agent.run("hello", conversation_id="A")
    second = await agent.run("and then", message_history=first.all_messages())
    assert [e for e in seen if e.layer == "store"] == [] and store.messages == second.all_messages()
    await agent.run("or else", message_history=first.all_messages())  # a branch from the first answer
    assert [e.action for e in seen if e.layer == "store"] == ["replaced"]
    assert len(store.archives) == 1 and len(store.archives[0]) == 4 and len(store.messages) == 4


async def test_resume_does_not_stand_for_the_history() -> None:
    """`cm.resume()` tells the manager what the store holds; the run is still given no history."""
    store = InMemoryStore()
    await agent_on(store, Counted(), []).run("hello", conversation_id="A")
    kept, model = list(store.messages), Counted()
    cm = ContextManager(window=8_000, store=store)
    cm.resume()
    with pytest.raises(UserError, match=r"^the store \(InMemoryStore\) holds 2 messages of conversation 'A', and"):
        await Agent(FunctionModel(model), capabilities=[cm]).run("next question", conversation_id="A")
    assert model.calls == 0 and store.messages == kept and store.archives == []
