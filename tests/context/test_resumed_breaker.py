"""The circuit breaker is part of the state a restarted manager is given back (`layer_state` /
`load_layer_state`): one open when the state was saved is open after the restart, and closing it
(`close_breaker`, which a `compact_now` that succeeds calls) is saved at once. It was this
process's count only: a restarted session tried, and failed, as many automatic compactions again.
It is open until its cool-down ends (breaker_retry.py, saved as `breaker_retry_at`: tested in
tests/context/test_breaker_retries_after_cool_down.py)."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from compact_agent.context import ContextManager
from compact_agent.context.wiring import Internals


def manager(saved: list[dict[str, Any]] | None = None) -> ContextManager:
    return ContextManager.wired(Internals(save_state=saved.append if saved is not None else None), window=32_000)


def test_an_open_breaker_is_open_after_a_restart_until_closed():
    saved: list[dict[str, Any]] = []
    cm = manager(saved)
    assert "learned" not in cm.layer_state()  # nothing failed: nothing said
    cm.failures = cm.limits.max_consecutive_failures
    cm.breaker_retry_at = cm.clock() + timedelta(minutes=5)  # as the failure that opened it sets it
    state = json.loads(json.dumps(cm.layer_state()))  # as the agent writes it beside the session
    assert state["learned"]["failures"] == 3 and "breaker_retry_at" in state["learned"]
    again = manager(saved)
    again.load_layer_state(state)
    assert again.breaker_open and again.failures == 3
    again.close_breaker()
    assert not again.breaker_open
    assert "failures" not in saved[-1].get("learned", {})  # saved at once, not at the next request
    third = manager()
    third.load_layer_state(saved[-1])
    assert not third.breaker_open


def test_a_damaged_count_counts_from_nothing():
    for damaged in ("3", -1, 2.5, True, None, [3]):
        cm = manager()
        cm.load_layer_state({"learned": {"failures": damaged}})
        assert cm.failures == 0, damaged
