"""The refusal of a second conversation by a ContextManager given objects of its own reads as a
sentence: it said "given its own store, which belong to one conversation ('one'), and cannot also
serve ..." (a plural verb for one object, a list without "and"). It names the arguments as
written (`store=`), and where a run's conversation id comes from: the one passed, the history's, or
one pydantic-ai made up (a store-backed manager's second run without an id got a new one)."""

from __future__ import annotations

import pytest
from pydantic_ai.exceptions import UserError

from compact_agent.context import ContextManager, InMemoryStore
from compact_agent.context.lifecycle import state_for


def test_one_object_of_its_own() -> None:
    cm = ContextManager(window=16_000, store=InMemoryStore())
    state_for(cm, "one")
    with pytest.raises(UserError) as caught:
        state_for(cm, "two")
    assert str(caught.value) == (
        "this ContextManager cannot also serve conversation 'two': its store= holds conversation 'one' (a run's "
        "conversation is the conversation_id= passed to it, else the one its message_history carries, else a new "
        "one pydantic-ai makes up); if this run goes on with conversation 'one', pass conversation_id='one' to the "
        "run or the UI adapter (a history sent through a UI's message format comes back without its id); else "
        "create one ContextManager per conversation, or leave store= out")


def test_several_objects_of_its_own() -> None:
    cm = ContextManager(window=16_000, store=InMemoryStore())
    cm._owned = ["store", "layers", "memory"]  # as `ContextManager.wired` with layers and notes of the caller's
    state_for(cm, "one")
    with pytest.raises(UserError) as caught:
        state_for(cm, "two")
    assert "its store=, layers= and memory= hold conversation 'one' (a run's conversation is " in str(caught.value)
    assert str(caught.value).endswith("or leave store=, layers= and memory= out")
