"""Automatic compaction paused by archives the store could not write resumes by itself once one can
be written. A full disk (ENOSPC) failed three automatic compactions in a row, which paused automatic
compaction for the conversation: after the space was freed it stayed paused, the history growing
request after request, until `compact_now` (the agent's /compact). Now a pause whose latest failure
was the archive is tried again `ARCHIVE_RETRY` requests later, the wait doubled while the archive
still cannot be written: no attempt on every request, and still no compaction without its archive.
The pause is said once (`paused`), a try that fails again is not (`retry`), and the compaction that
resumes it says so once (`resumed`). A pause of another cause is not tried again by requests: it waits
for a cool-down by the clock (breaker_retry.py, tests/context/test_breaker_retries_after_cool_down.py)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from datetime import UTC, datetime

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import CompactionSettings, ContextManager, InMemoryStore
from compact_agent.context.breaker_retry import ARCHIVE_RETRY
from compact_agent.context.plumbing.events import Event
from compact_agent.context.testing import library_request
from compact_agent.ui.render import compact_line

from .test_store_failures import FULL, Failing, Model

STILL = datetime(2026, 1, 1, tzinfo=UTC)  # a clock that stands still
QUESTION = "word " * 400  # each run adds about 500 tokens: an 8,000-token window wants a compaction often


async def conversation(store: InMemoryStore, runs: int, freed_at: int, *, model: Callable[..., ModelResponse] | None = None,
                       settings: CompactionSettings | None = None, clock: Callable[[], datetime] | None = None
                       ) -> tuple[ContextManager, list[Event], list[tuple[int, int, bool]]]:
    """`runs` runs of one conversation, the store's archive failing until run `freed_at`. Returns the
    manager, its events, and per run: the requests made so far, compaction attempts so far, paused."""
    events: list[Event] = []
    cm = ContextManager(window=8_000, store=store, event_handler=events.append, settings=settings)
    if clock is not None:
        cm.clock = clock
    agent = Agent(FunctionModel(model or Model()), capabilities=[cm])
    history: list[ModelMessage] | None = None
    seen = []
    for i in range(runs):
        if i == freed_at and isinstance(store, Failing):
            store.error = None  # the space freed
        history = (await agent.run(f"question {i} " + QUESTION, message_history=history)).all_messages()
        tried = sum(1 for e in events if e.layer == "compact")
        seen.append((cm.requests, tried, cm.breaker_open))
    return cm, events, seen


def compactions(events: list[Event]) -> list[Event]:
    return [e for e in events if e.layer == "compact" and e.action != "failed"]


async def test_a_pause_by_a_full_disk_ends_by_itself_once_the_archive_can_be_written() -> None:
    store = Failing("archive", FULL)
    cm, events, seen = await conversation(store, 60, freed_at=30)
    failed = [e for e in events if e.layer == "compact" and e.action == "failed"]
    assert len(failed) >= 4 and all("No space left on device" in e.detail["error"] for e in failed)
    paused = [e for e in failed if e.detail.get("paused")]
    assert len(paused) == 1 and paused[0].detail["failures"] == 3  # said once
    assert paused[0].detail["retry_after"] == ARCHIVE_RETRY
    assert compact_line(paused[0]).endswith("3 in a row, so automatic compaction is paused, tried again in "
                                            f"{ARCHIVE_RETRY} requests (/compact still works)")
    retries = failed[failed.index(paused[0]) + 1:]
    assert retries and all(e.detail.get("retry") and not e.detail.get("paused") for e in retries)
    assert [e.detail["retry_after"] for e in retries] == [ARCHIVE_RETRY * 2 ** k for k in range(1, len(retries) + 1)]
    # While paused, no attempt on every request: each try waits longer than the one before.
    paused_runs = [(requests, tried) for requests, tried, open_ in seen if open_]
    assert paused_runs and paused_runs[-1][1] - paused_runs[0][1] <= len(retries)
    assert paused_runs[-1][0] - paused_runs[0][0] >= ARCHIVE_RETRY * 2  # many requests, two tries at most
    # Freed: automatic compaction resumed without compact_now, and says so once.
    made = compactions(events)
    assert made and not cm.breaker_open and cm.failures == 0
    resumed = [e for e in made if e.detail.get("resumed")]
    assert resumed == made[:1]
    assert compact_line(resumed[0]).endswith("; automatic compaction resumed")
    assert all("resumed" not in compact_line(e) for e in made[1:])
    # No compaction without its archive: one archive written per rewrite, none for a failed try.
    assert len(store.boundaries) == len(made) == len(store.archives) + store.archives_dropped
    assert store.calls["archive"] == len(made) + len(failed)


async def test_a_pause_that_is_not_the_archives_is_not_tried_again_by_requests() -> None:
    """Summary requests that fail (records off, so that every compaction asks for one) pause it as
    before: no retry, whatever the requests since, while the clock stands still (its cool-down is
    by the clock: tests/context/test_breaker_retries_after_cool_down.py)."""
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if library_request(messages) == "summary":
            raise RuntimeError("summaries are broken today")
        return answers(messages, info)

    answers = Model()
    store = InMemoryStore()
    cm, events, seen = await conversation(store, 50, freed_at=-1, model=model,
                                          settings=CompactionSettings(compaction_records=False, memory_enabled=False),
                                          clock=lambda: STILL)
    failed = [e for e in events if e.layer == "compact" and e.action == "failed"]
    assert len(failed) == 3 and cm.breaker_open and cm.archive_retry_at is None
    assert failed[-1].detail.get("paused") and "retry_after" not in failed[-1].detail
    assert seen[-1][0] - next(r for r, _, open_ in seen if open_) > ARCHIVE_RETRY * 4
    assert not compactions(events) and store.archives == []


async def restarted(store: Failing, state: dict[str, object], runs: int, freed_at: int) -> tuple[ContextManager,
                                                                                             list[Event], bool]:
    """A manager given `state` (as a restarted process loads it) going on with the store's conversation
    for `runs` runs; whether it was paused before its first."""
    events: list[Event] = []
    cm = ContextManager(window=8_000, store=store, event_handler=events.append)
    cm.load_layer_state(state)
    paused = cm.breaker_open
    agent, history = Agent(FunctionModel(Model()), capabilities=[cm]), store.load_messages()
    for i in range(runs):
        if i == freed_at:
            store.error = None
        history = (await agent.run(f"again {i} " + QUESTION, message_history=history)).all_messages()
    return cm, events, paused


async def test_after_a_restart_a_pause_by_a_full_disk_is_tried_at_the_first_compaction_needed() -> None:
    """Saved with the layers' state (`archive_paused`), such a pause gives way to one try at the next
    process's first compaction: still full, the pause is said again there, to this run's user, and
    tried again as before; freed, it resumes. A restarted session stayed paused until compact_now."""
    store = Failing("archive", FULL)
    first, _, _ = await conversation(store, 20, freed_at=-1)
    assert first.breaker_open
    state = json.loads(json.dumps(first.layer_state()))  # as the agent writes it beside the session
    assert state["learned"]["failures"] == 3 and state["learned"]["archive_paused"] is True
    full = copy.deepcopy(store)
    cm, events, paused = await restarted(full, state, 30, freed_at=15)
    failed = [e for e in events if e.layer == "compact" and e.action == "failed"]
    assert not paused and failed and failed[0].detail.get("paused")
    assert failed[0].detail["retry_after"] == 2 * ARCHIVE_RETRY  # the fourth in a row: the wait doubled
    assert [e for e in failed if e.detail.get("paused")] == failed[:1] and all(e.detail.get("retry") for e in failed[1:])
    made = compactions(events)
    assert made and made[0].detail.get("resumed") and not cm.breaker_open
    freed = copy.deepcopy(store)
    freed.error = None
    cm, events, paused = await restarted(freed, state, 5, freed_at=-1)
    assert not paused and not [e for e in events if e.action == "failed"]
    assert compactions(events)[0].detail.get("resumed") and cm.failures == 0
    assert "archive_paused" not in cm.layer_state().get("learned", {})
    # A pause of another cause is saved without it, with the time its cool-down ends (breaker_retry.py):
    # paused after the restart until then, not by requests.
    other = ContextManager(window=8_000)
    other.load_layer_state({"learned": {"failures": 3, "breaker_retry_at": "2999-01-01T00:00:00+00:00"}})
    assert other.breaker_open and other.archive_retry_at is None
