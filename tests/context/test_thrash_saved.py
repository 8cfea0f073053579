"""The thrash guard's state is saved beside the history and taken back by the next process: a `-c`
run began with the guard at rest, whatever the compactions before it had bought."""

from __future__ import annotations

from compact_agent.context import ContextManager
from compact_agent.context.saved_state import LEARNED


def test_the_guard_goes_on_from_the_saved_compaction() -> None:
    fresh = ContextManager(window=4_096)
    fresh.requests = 3  # the answers a resumed history holds (`learn_conversation`)
    assert fresh.thrash_level("threshold") == 0  # nothing known of a compaction: at rest

    resumed = ContextManager(window=4_096)
    # Level 1, a compaction that kept 2,289 of 2,708 tokens (weak), the history then holding 1 answer.
    resumed.load_layer_state({LEARNED: {"thrash": [1, 2_708, 2_289, 1]}})
    resumed.requests = 3
    assert resumed.thrash_level("threshold") == 2
    assert resumed.layer_state()[LEARNED]["thrash"] == [2, 2_708, 2_289, 1]
    assert resumed.thrash_level("manual") == 0  # /compact asks for a summary of it all, as before


def test_a_saved_state_that_is_not_the_guards_is_ignored() -> None:
    for saved in ("2", [1, 2], [1, "2708", 2289, 1], [-1, 2708, 2289, 1], None):
        cm = ContextManager(window=4_096)
        cm.load_layer_state({LEARNED: {"thrash": saved}})
        cm.requests = 3
        assert cm.thrash_level("threshold") == 0, saved
        assert "thrash" not in cm.layer_state().get(LEARNED, {})
