"""A circuit breaker opened by failed summary requests is tried again once a cool-down has passed.

A service that makes a manager per turn (its layer state loaded and saved, as docs/library.md's
stored-conversation example) had three summary requests fail in a short provider outage: the
breaker opened for good. No compaction was tried in the turns after, the store grew, and every
request left its older rounds out; only `close_breaker()` or a compaction asked for reopened it.
Now automatic compaction is tried again after a cool-down by the manager's clock (60 s, doubled
after each retry that fails again, up to 32 minutes: breaker_retry.py): one attempt, which closes
the breaker or pauses it again for longer. The time is saved with the layer state
(`learned["breaker_retry_at"]`), so a new manager keeps the pause until then; a damaged one is due
at once. The clock is injected and advanced: nothing sleeps."""

from __future__ import annotations

import copy
import json
import logging
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import CompactionSettings, ContextManager, InMemoryStore
from compact_agent.context.breaker_retry import COOL_DOWN_CAP_S, cool_down_s, retry_in_s
from compact_agent.context.plumbing.events import Event
from compact_agent.context.testing import library_request, reply_to_library_request
from compact_agent.context.wiring import Internals
from compact_agent.ui.render import auto_compaction, compact_line

QUESTION = "word " * 400  # each turn adds about 500 tokens: an 8,000-token window wants a compaction often
SETTINGS = CompactionSettings(compaction_records=False, memory_enabled=False)  # every compaction asks a model
START = datetime(2026, 12, 7, 6, 0, tzinfo=UTC)


class Clock:
    """The manager's clock, advanced by the test."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


class Outage:
    """The model: its first `failing` summary requests fail (a provider's outage), later ones work."""

    def __init__(self, failing: int) -> None:
        self.failing, self.summaries, self.turns = failing, 0, 0

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if library_request(messages) == "summary":
            self.summaries += 1
            if self.summaries <= self.failing:
                raise RuntimeError("503 the provider is overloaded")
        self.turns += 1
        return reply_to_library_request(messages) or ModelResponse(parts=[TextPart(f"answer {self.turns}")])


def manager(clock: Clock, store: InMemoryStore, events: list[Event]) -> ContextManager:
    return ContextManager.wired(Internals(clock=clock), window=8_000, store=store, settings=SETTINGS,
                                event_handler=events.append)


def failed(events: list[Event]) -> list[Event]:
    return [e for e in events if e.layer == "compact" and e.action == "failed"]


def made(events: list[Event]) -> list[Event]:
    return [e for e in events if e.layer == "compact" and e.action not in ("failed", "blocked")]


class Conversation:
    """One conversation on one manager, a turn at a time."""

    def __init__(self, failing: int) -> None:
        self.clock, self.model, self.store, self.events = Clock(), Outage(failing), InMemoryStore(), []
        self.cm = manager(self.clock, self.store, self.events)
        self.agent = Agent(FunctionModel(self.model), capabilities=[self.cm])
        self.history: list[ModelMessage] | None = None
        self.n = 0

    async def turn(self) -> None:
        self.n += 1
        result = await self.agent.run(f"question {self.n} " + QUESTION, message_history=self.history)
        self.history = result.all_messages()

    async def until_paused(self) -> None:
        for _ in range(30):
            await self.turn()
            if self.cm.breaker_open:
                return
        raise AssertionError("the breaker never opened")


async def test_the_breaker_is_tried_again_after_its_cool_down_and_compaction_resumes() -> None:
    c = Conversation(failing=3)
    await c.until_paused()
    fails = failed(c.events)
    assert [e.detail["failures"] for e in fails] == [1, 2, 3] and c.model.summaries == 3
    assert fails[-1].detail.get("paused") is True and fails[-1].detail["retry_in_s"] == 60
    assert "retry_in_s" not in fails[0].detail and "retry_in_s" not in fails[1].detail
    assert compact_line(fails[-1]).endswith("3 in a row, so automatic compaction is paused, tried again in 1 minute "
                                            "(/compact still works)")  # as the terminal agent says it
    # Before the cool-down ends: no compaction tried, however many turns need one.
    for _ in range(11):
        c.clock.advance(5)  # 55 s in all
        await c.turn()
        assert c.cm.breaker_open
    c.clock.advance(4)  # 59 s
    await c.turn()
    assert c.model.summaries == 3 and len(failed(c.events)) == 3 and not made(c.events)
    # Once it has ended: one attempt, which succeeds and closes the breaker.
    c.clock.advance(1)
    assert not c.cm.breaker_open  # due
    await c.turn()
    assert c.model.summaries == 4
    [first] = made(c.events)
    assert first.detail.get("resumed") is True and c.cm.failures == 0 and not c.cm.breaker_open
    assert "failures" not in c.cm.layer_state().get("learned", {})
    # Automatic compaction goes on as before, the clock standing still.
    for _ in range(12):
        await c.turn()
    assert len(made(c.events)) >= 2 and len(failed(c.events)) == 3


async def test_a_retry_that_fails_pauses_it_again_for_twice_as_long() -> None:
    c = Conversation(failing=4)
    await c.until_paused()
    c.clock.advance(60)
    await c.turn()  # the retry: the provider still fails
    again = failed(c.events)[-1]
    assert len(failed(c.events)) == 4 and c.model.summaries == 4
    assert again.detail["failures"] == 4 and again.detail.get("paused") is True and again.detail["retry_in_s"] == 120
    assert c.cm.breaker_open
    assert compact_line(again).endswith("4 in a row, so automatic compaction is paused, tried again in 2 minutes "
                                        "(/compact still works)")
    c.clock.advance(119)
    await c.turn()
    assert c.model.summaries == 4 and c.cm.breaker_open  # one attempt, then the longer wait
    c.clock.advance(1)
    await c.turn()
    assert c.model.summaries == 5 and made(c.events)[0].detail.get("resumed") and c.cm.failures == 0


async def test_resuming_it_by_hand_forgets_the_retry_time_too() -> None:
    """`close_breaker()` (a /compact that succeeded, `--resume-auto`) closes it as a compaction that
    succeeds does: no failures, and no retry time left set beside them."""
    c = Conversation(failing=3)
    await c.until_paused()
    assert c.cm.breaker_retry_at is not None and retry_in_s(c.cm) == 60
    c.cm.close_breaker()
    assert (c.cm.failures, c.cm.breaker_retry_at, c.cm.archive_retry_at) == (0, None, None)
    assert not c.cm.breaker_open and retry_in_s(c.cm) is None


def test_the_wait_doubles_up_to_about_half_an_hour() -> None:
    assert [cool_down_s(n, 3) for n in range(3, 11)] == [60, 120, 240, 480, 960, 1920, 1920, 1920]
    assert COOL_DOWN_CAP_S == 1920
    # /status says when, in words (rounded up).
    assert auto_compaction(3, True, retry_in_s=58.2).endswith("; it is tried again in 59 seconds, and resumes if "
                                                              "that succeeds (a /compact that succeeds, or /compact "
                                                              "--resume-auto, resumes it now)")
    assert "tried again in 1 minute," in auto_compaction(3, True, retry_in_s=60)
    assert "tried again in 32 minutes," in auto_compaction(8, True, retry_in_s=1920)


async def service_turn(clock: Clock, model: Outage, store: InMemoryStore, saved: list[str], n: int,
                       events: list[Event]) -> ContextManager:
    """A turn of a service that makes a manager per turn, its state loaded and saved (docs/library.md)."""
    cm = manager(clock, store, events)
    if saved:
        cm.load_layer_state(json.loads(saved[-1]))
    vars(cm)["paused_at_start"] = cm.breaker_open
    await Agent(FunctionModel(model), capabilities=[cm]).run(f"question {n} " + QUESTION,
                                                               message_history=store.load_messages())
    saved.append(json.dumps(cm.layer_state()))
    return cm


async def test_the_pause_is_saved_and_a_new_manager_keeps_it_until_its_time() -> None:
    clock, model, store, saved, events = Clock(), Outage(failing=3), InMemoryStore(), list[str](), list[Event]()
    n = 0
    while len(failed(events)) < 3:
        n += 1
        assert n < 30, "the breaker never opened"
        await service_turn(clock, model, store, saved, n, events)
    learned = json.loads(saved[-1])["learned"]
    assert learned["failures"] == 3
    assert learned["breaker_retry_at"] == (START + timedelta(seconds=60)).isoformat()
    assert failed(events)[-1].detail["retry_in_s"] == 60
    for _ in range(5):  # every turn's new manager is paused until the saved time, and asks nothing
        clock.advance(11)  # 55 s in all
        n += 1
        cm = await service_turn(clock, model, store, saved, n, events)
        assert vars(cm)["paused_at_start"] and cm.breaker_open
    assert model.summaries == 3 and not made(events)
    clock.advance(5)  # the saved time
    n += 1
    cm = await service_turn(clock, model, store, saved, n, events)
    assert not vars(cm)["paused_at_start"] and model.summaries == 4
    assert made(events) and made(events)[0].detail.get("resumed") and cm.failures == 0
    learned = json.loads(saved[-1]).get("learned", {})
    assert "failures" not in learned and "breaker_retry_at" not in learned


@pytest.mark.parametrize("damaged", ["soon", "2026-13-45T00:00:00", "", 17, None, [60], {"at": 1}])
async def test_a_damaged_retry_time_is_due_at_once(damaged: Any, caplog: pytest.LogCaptureFixture) -> None:
    """A saved time that cannot be read is no traceback: it is said in a warning, and the breaker
    is tried at the first compaction the new manager needs, as a state saved without one is."""
    c = Conversation(failing=3)
    await c.until_paused()
    state: dict[str, Any] = json.loads(json.dumps(c.cm.layer_state()))
    for learned, due in ((dict(state["learned"]), False), ({**state["learned"], "breaker_retry_at": damaged}, True),
                         ({k: v for k, v in state["learned"].items() if k != "breaker_retry_at"}, True)):
        events: list[Event] = []
        store = copy.deepcopy(c.store)  # the conversation as the pause left it, each time
        cm = manager(c.clock, store, events)
        with caplog.at_level(logging.WARNING):
            cm.load_layer_state({**state, "learned": learned})
        assert cm.failures == 3 and cm.breaker_open is not due
        asked = c.model.summaries
        await Agent(FunctionModel(c.model), capabilities=[cm]).run("again " + QUESTION,
                                                                   message_history=store.load_messages())
        assert c.model.summaries == asked + due, learned
        assert bool(made(events)) is due
    assert f"breaker_retry_at' is unusable ({damaged!r}" in caplog.text
