"""The last resort (fit.py) reports under L1's name, `budget`/`shrink`: a turn's tally said it as
"large tool results moved to files" (L1's words), the wording `render.fit_words` exists to avoid,
even when it only left the oldest rounds out. It is tallied apart and said by what it did."""

from __future__ import annotations

from compact_agent.context.plumbing.events import Event
from compact_agent.ui.layer_tally import LayerTally


def test_a_last_resort_in_a_turn_is_said_by_what_it_left_out() -> None:
    tally = LayerTally()
    tally.add(Event("budget", "shrink", 30_000, 26_000, trigger="window", detail={"rounds_left_out": 2}), [])
    tally.add(Event("budget", "shrink", 31_000, 28_000, trigger="window",
                    detail={"rounds_left_out": 1, "first_message_cut": True}), [])
    tally.add(Event("budget", "spill", 20_000, 14_000, ids=["c1"]), [])
    lines = tally.lines(32_000)
    assert lines == ["context: the 3 oldest rounds left out, the first message shortened to fit the window, "
                     "freed 7,000 tokens",
                     "context: large tool results moved to files (a preview stays) (1 result), freed 6,000 tokens"]
