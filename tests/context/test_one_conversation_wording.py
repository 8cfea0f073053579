"""The refusal of a second conversation by a ContextManager given objects of its own reads as a
sentence: it said "given its own store, which belong to one conversation ('one'), and cannot also
serve ..." (a plural verb for one object, a list without "and")."""

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
        "this ContextManager cannot also serve conversation 'two': it was given its own store, which holds "
        "conversation 'one'; if this run goes on with conversation 'one', pass conversation_id='one' to the run "
        "or the UI adapter (a history sent through a UI's message format comes back without its id); else create "
        "one ContextManager per conversation, or leave that argument out")


def test_several_objects_of_its_own() -> None:
    cm = ContextManager(window=16_000, store=InMemoryStore())
    cm._owned = ["store", "layers", "memory"]  # as `ContextManager.wired` with layers and notes of the caller's
    state_for(cm, "one")
    with pytest.raises(UserError) as caught:
        state_for(cm, "two")
    assert "its own store, layers and memory, which hold conversation 'one'; " in str(caught.value)
    assert str(caught.value).endswith("or leave those arguments out")
