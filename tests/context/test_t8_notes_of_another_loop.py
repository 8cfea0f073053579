"""Background notes (`notes_in_background=True`) belong to the event loop of the run that started
them. `agent.run_sync` runs each call on its thread's loop, which runs no more once the call
returns: a notes request still in flight then stayed pending for good. `asyncio.run(cm.drain())`
never returned, a run of the conversation in another thread never updated the notes again (the
update "in flight" was never done) and waited `memory_wait_s` at every compaction, and "Task was
destroyed but it is pending!" came at exit. A notes task of another loop is dropped now: cancelled
on its loop, never awaited from this one, and the notes it was to bring up to date are updated by
the next run."""

from __future__ import annotations

import asyncio
import gc
import logging
import re
import threading
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage, UsageLimits

from compact_agent.context import CompactionSettings, ContextManager, Event
from compact_agent.context.testing import library_request, reply_to_library_request

SETTINGS = CompactionSettings(memory_enabled=True, memory_min_tokens=1_000, memory_update_tokens=1_000,
                              memory_min_text_messages=1, memory_update_tool_calls=1, memory_wait_s=0.2)


class Reader:
    """Reads pages up to the number its newest prompt names. The first notes request never gets
    its answer (it is still in flight when the run returns); every later one is answered."""

    def __init__(self) -> None:
        self.notes_asked = 0

    async def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        text = "\n".join(str(getattr(p, "content", "")) for m in messages for p in m.parts)
        usage = RequestUsage(input_tokens=len(text) // 4 + 200, output_tokens=20)
        if library_request(messages) == "notes":
            self.notes_asked += 1
            if self.notes_asked == 1:
                await asyncio.Event().wait()  # never set: pending for as long as its loop runs it
        if (reply := reply_to_library_request(messages, "Pages read so far.", usage=usage)) is not None:
            return reply
        read = max([int(n) for n in re.findall(r"page (\d+):", text)] or [0])
        goal = max(int(g) for g in re.findall(r"up to page (\d+)", text))
        if read >= goal:
            return ModelResponse(parts=[TextPart(f"read {read}")], usage=usage)
        return ModelResponse(parts=[ToolCallPart("read_page", {"page": read + 1})], usage=usage)


def agent_of(cm: ContextManager) -> Agent[None, str]:
    agent = Agent(FunctionModel(Reader()), capabilities=[cm])

    @agent.tool_plain
    def read_page(page: int) -> str:
        """One page of the log."""
        return f"page {page}: " + " ".join(f"event-{page}-{i} ok" for i in range(300))

    return agent


def in_thread(call: Any) -> Any:
    """`call()` run in a thread of its own (its own event loop, as a worker thread's `run_sync` has)."""
    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(call()))
    thread.start()
    thread.join(timeout=60)
    assert not thread.is_alive()
    return out[0]


def test_drain_from_another_loop_returns() -> None:
    cm = ContextManager(window=8_000, settings=SETTINGS, notes_in_background=True)
    agent_of(cm).run_sync("Read up to page 12.", usage_limits=UsageLimits(request_limit=100))
    assert cm.memory is not None and cm.memory.task is not None and not cm.memory.task.done()
    asyncio.run(asyncio.wait_for(cm.drain(), timeout=10))  # never returned
    assert not cm.memory.in_flight


def two_turns_in_two_threads(cm: ContextManager, events: list[Event]) -> None:
    """Turn 1 of conversation "c1" in a thread, its notes left in flight; turn 2 in another thread."""
    agent = agent_of(cm)
    first = in_thread(lambda: agent.run_sync("Read up to page 12.", conversation_id="c1",
                                             usage_limits=UsageLimits(request_limit=100)))
    assert cm.memory is not None and cm.memory.task is not None and not cm.memory.task.done()
    assert not cm.memory.in_flight  # its loop runs no more: the conversation is not busy with it
    before = len(events)
    in_thread(lambda: agent.run_sync("Read up to page 40.", conversation_id="c1", message_history=first.all_messages(),
                                     usage_limits=UsageLimits(request_limit=200)))
    later = [e for e in events[before:] if e.layer == "memory"]
    assert any(e.action == "update" for e in later), [(e.action, e.detail) for e in later]
    assert all(e.detail.get("waited_ms", 0) < 150 for e in later if e.action == "skip")  # none waited on it


def test_a_turn_in_another_thread_updates_the_notes_again(caplog: pytest.LogCaptureFixture) -> None:
    events: list[Event] = []
    cm = ContextManager(window=8_000, settings=SETTINGS, notes_in_background=True, event_handler=events.append)
    two_turns_in_two_threads(cm, events)
    with caplog.at_level(logging.ERROR, logger="asyncio"):
        asyncio.run(cm.drain())
        del cm
        gc.collect()
    assert not [r for r in caplog.records if "destroyed but it is pending" in r.getMessage()]
