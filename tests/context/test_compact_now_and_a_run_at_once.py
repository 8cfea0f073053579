"""A run of a conversation started while `compact_now` of it waits for its summary is refused, and
so is a second `compact_now`: the run used to go ahead, save its turn, and then see the store
rewritten with the compacted history that lacked it (a restart from the store lost the turn);
two at once both paid for a summary and the store kept whichever came last."""

from __future__ import annotations

import asyncio

import pytest
from pydantic_ai.exceptions import UserError

from compact_agent.context import CompactionError, InMemoryStore

from .held_runs import compaction_held


async def test_a_run_while_compact_now_waits_for_its_summary_is_refused() -> None:
    held = await compaction_held()
    cm, agent, history, release = held.cm, held.agent, held.history, held.release
    try:
        with pytest.raises(UserError) as caught:
            await agent.run("one more", message_history=history)
    finally:
        release.set()
    assert "is being compacted (compact_now)" in str(caught.value) and "\n" not in str(caught.value)
    compacted = await held.compacting
    store = cm.store
    assert isinstance(store, InMemoryStore) and store.messages == compacted
    after = await agent.run("one more", message_history=compacted)  # once it returned, runs go on
    assert store.messages == after.all_messages()


async def test_a_second_compact_now_of_the_conversation_at_once_is_refused() -> None:
    held = await compaction_held()
    cm, first, release = held.cm, held.compacting, held.release
    second = asyncio.ensure_future(cm.compact_now(held.history))
    for _ in range(100):  # every chance for it to get as far as its own summary request
        await asyncio.sleep(0)
    refused = second.done() and second.exception()
    release.set()
    compacted = await first
    await asyncio.gather(second, return_exceptions=True)
    assert isinstance(refused, CompactionError) and "is being compacted by another compact_now" in str(refused)
    assert len(cm.compactions) == 1 and cm.store.messages == compacted  # type: ignore[attr-defined]
