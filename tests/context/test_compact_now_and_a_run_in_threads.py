"""`compact_now` of a conversation and a run of it, started at once in two threads (a worker pool
serving one manager), are one at a time: `compact_now` takes the conversation under the lock a run's
claim takes (lifecycle.py `_CLAIM`), and the one that comes second is refused in one line.

`compact_now` looked at the conversation, found it free, and took it only after reading the history
and rewriting the store; a run that claimed it in between ran, saved its turn, and then saw the
store rewritten by the compaction of a history that lacked it. The run is let in at that point (the
first thing `compact_now` does with the history once it has looked), joined, not timed."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import CompactionSettings, ContextManager, InMemoryStore, lifecycle
from compact_agent.context.compaction.unmarked import restore_compaction_marks
from compact_agent.context.testing import reply_to_library_request


def _model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return reply_to_library_request(messages, "The talk so far.") or ModelResponse(parts=[TextPart("answer " * 300)])


def test_a_run_in_another_thread_while_compact_now_takes_the_conversation_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    cm = ContextManager(window=64_000, settings=CompactionSettings(compaction_records=False))
    agent = Agent(FunctionModel(_model), capabilities=[cm])
    history: list[ModelMessage] = []
    for i in range(6):
        history = agent.run_sync(f"question {i} " + "words " * 300, message_history=history).all_messages()

    outcome: dict[str, Any] = {}

    def other_thread() -> None:
        try:
            outcome["run"] = agent.run_sync("one more", message_history=history)
        except Exception as error:  # what the run raised is what the test checks
            outcome["run"] = error

    thread = threading.Thread(target=other_thread, name="run")
    restore = restore_compaction_marks

    def at_the_history(messages: list[ModelMessage]) -> None:
        if threading.current_thread() is not thread and not thread.is_alive() and "run" not in outcome:
            thread.start()  # compact_now has looked at the conversation: the run comes now
            thread.join(timeout=60)
        restore(messages)

    monkeypatch.setattr(lifecycle, "restore_compaction_marks", at_the_history)
    compacted = asyncio.run(cm.compact_now(history))
    refused = outcome["run"]
    assert isinstance(refused, lifecycle.ConversationBusy), refused
    assert "is being compacted (compact_now)" in str(refused) and "\n" not in str(refused)
    store = cm.store
    assert isinstance(store, InMemoryStore) and store.messages == compacted
    monkeypatch.setattr(lifecycle, "restore_compaction_marks", restore)
    after = agent.run_sync("one more", message_history=compacted)  # once it returned, runs go on
    assert store.messages == after.all_messages()
