"""The output reserve follows the longest answer seen and room for a summary (`Schedule.output_limits`),
and so does the threshold. Both are part of the state a restarted manager is given back: a session
resumed with `-c` had its threshold at the configured reserve's again, lower than the run before had
reached, and compacted earlier than that run would have."""

from __future__ import annotations

import json
from typing import Any

from compact_agent.context import ContextManager
from compact_agent.context.wiring import Internals


def manager() -> ContextManager:
    return ContextManager.wired(Internals(), window=32_000)


def test_a_restart_keeps_the_threshold_the_answers_taught():
    fresh = manager().limits.threshold
    cm = manager()
    cm.adapt_output_reserve(900)
    cm.schedule.summary_tokens, cm.schedule.full_summaries = 1_500, 2
    cm.adapt_output_reserve(0)
    learned = cm.limits
    assert learned.threshold > fresh  # a 900-token answer needs less room than the configured reserve
    state: dict[str, Any] = json.loads(json.dumps(cm.layer_state()))  # as the agent writes it beside the session
    assert state["learned"]["longest_answer"] == 900 and state["learned"]["summary"] == [1_500, 2]
    again = manager()
    again.load_layer_state(state)
    assert again.limits.threshold == learned.threshold
    assert again.limits.output_reserve == learned.output_reserve
    assert (again.schedule.summary_tokens, again.schedule.full_summaries) == (1_500, 2)
    assert again.compactor is not None and again.compactor.limits == again.limits


def test_a_longer_answer_after_the_restart_still_widens_the_reserve():
    cm = manager()
    cm.load_layer_state({"learned": {"longest_answer": 900}})
    narrow = cm.limits.output_reserve
    cm.adapt_output_reserve(3_000)
    assert cm.limits.output_reserve > narrow


def test_damaged_values_are_measured_again():
    fresh = manager()
    for damaged in ("900", -1, 2.5, True, None, [900]):
        cm = manager()
        cm.load_layer_state({"learned": {"longest_answer": damaged, "summary": damaged}})
        assert cm.limits == fresh.limits, damaged
        assert cm.schedule.summary_tokens == fresh.schedule.summary_tokens, damaged
    cm = manager()
    cm.load_layer_state({"learned": {"summary": [1_500, 0]}})
    assert cm.schedule.full_summaries == 0
