"""A second run of a conversation in progress is refused as `ConversationBusy`, naming the conversation.

It was a bare pydantic-ai `UserError`: a service answering a user's double submit with 409 Conflict had
to tell it from every other usage error by parsing its words. `ConversationBusy` is a `UserError`, so
what caught that still catches it, and carries `conversation_id`."""

from __future__ import annotations

import pytest
from pydantic_ai.exceptions import UserError

import compact_agent.context as lib
from compact_agent.context import ConversationBusy

from .held_runs import compaction_held, turn_held


async def test_a_double_submit_is_conversation_busy_with_its_id() -> None:
    held = await turn_held("chat-7")
    with pytest.raises(ConversationBusy) as caught:
        await held.agent.run("go on", message_history=held.history, conversation_id="chat-7")
    assert caught.value.conversation_id == "chat-7"
    assert isinstance(caught.value, UserError)  # handlers written for the UserError still catch it
    assert "'chat-7' already has a run in progress on this ContextManager" in str(caught.value)
    held.release.set()
    assert (await held.running).output == "answer"


async def test_a_run_while_compact_now_rewrites_the_conversation_is_busy_too() -> None:
    held = await compaction_held("chat-8")
    try:
        with pytest.raises(ConversationBusy) as caught:
            await held.agent.run("more", message_history=held.history, conversation_id="chat-8")
    finally:
        held.release.set()
    assert caught.value.conversation_id == "chat-8" and "(compact_now)" in str(caught.value)
    await held.compacting


def test_it_is_exported() -> None:
    assert "ConversationBusy" in lib.__all__ and issubclass(lib.ConversationBusy, UserError)
    assert str(ConversationBusy("c1")) == "conversation 'c1' already has a run in progress: start the next when that one returns"
