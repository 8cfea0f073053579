"""A new process that runs a stored conversation with neither its history nor its id.

The commonest way to forget `message_history=` after a restart is to pass no `conversation_id=`
either: pydantic-ai makes a new id up for the run. Such a run was refused as another conversation's,
in words that named two ids the program never chose ("the store (SQLiteStore) holds conversation
'01a24f1f-684e-…', and this run is of '01a24f1f-6923-…': its history would replace that one") and
nothing of what it had left out. It is refused now as a run given no history: what the store holds, that
this run was given no message_history, and how to go on (with that history, or on a store of its own).
A run with a history of another conversation is refused as before."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic_ai.exceptions import UserError

from compact_agent.context import Event
from compact_agent.session.store import SessionStore
from tests.context.test_resume_without_history import Counted, agent_on


async def test_a_restart_that_passes_neither_history_nor_id_is_told_it_gave_no_history(tmp_path: Path) -> None:
    store = SessionStore(tmp_path, "s1")
    first = await agent_on(store, Counted(), []).run("hello")
    await agent_on(store, Counted(), []).run("and then", message_history=first.all_messages())
    held = store.load_messages()
    stored_id = held[-1].conversation_id
    assert len(held) == 4 and stored_id

    model, seen = Counted(), list[Event]()
    reopened = SessionStore(tmp_path, "s1")  # a new process: a new store object, a new manager
    with pytest.raises(UserError) as refused:
        await agent_on(reopened, model, seen).run("next question")
    line = str(refused.value)
    made_up = line.split("and this run, of ")[1].split(",")[0]
    assert made_up.strip("'") != stored_id
    assert line == (
        f"the store (SessionStore) holds 4 messages of conversation {stored_id!r}, and this run, of {made_up}, was "
        "given no message_history: it would replace them with its new prompt alone; to go on with that "
        "conversation, pass the history the store holds (message_history=store.load_messages()); for another, "
        "give each conversation (each ContextManager) a store of its own")
    assert "\n" not in line
    assert model.calls == 0 and reopened.archives() == [] and [e for e in seen if e.layer == "store"] == []
    assert [m.parts for m in reopened.load_messages()] == [m.parts for m in held]

    again = await agent_on(reopened, model, seen).run("next question", message_history=reopened.load_messages())
    assert again.output == "answer to next question" and len(reopened.load_messages()) == 6


async def test_another_conversations_history_is_still_refused_as_another_conversation(tmp_path: Path) -> None:
    store = SessionStore(tmp_path, "s1")
    await agent_on(store, Counted(), []).run("hello")
    other = await agent_on(SessionStore(tmp_path, "s2"), Counted(), []).run("hi there")
    model = Counted()
    with pytest.raises(UserError) as refused:
        await agent_on(SessionStore(tmp_path, "s1"), model, []).run("next", message_history=other.all_messages())
    assert str(refused.value).startswith("the store (SessionStore) holds conversation ")
    assert "its history would replace that one" in str(refused.value) and model.calls == 0
