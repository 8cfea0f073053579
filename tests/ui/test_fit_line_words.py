"""The line the REPL, `-p --verbose` and the demo print when the last resort shrinks a request (the
budget layer's `shrink` event) says what it left out. It said "large tool results moved to files (a
preview stays)" for every one, also when only the model's earlier reasoning was left out."""

from __future__ import annotations

from compact_agent.context import Event
from compact_agent.ui.render import layer_line


def shrink(**detail: int) -> Event:
    return Event("budget", "shrink", 9_000, 1_000, trigger="window", detail={
        "previews": 0, "rounds_left_out": 0, "thinking_left_out": 0, "first_message_cut": 0, "steps_folded": 0,
        **detail})


def test_reasoning_left_out_is_said_as_such() -> None:
    line = layer_line(shrink(thinking_left_out=3), 8_000)
    assert line == "context: the model's reasoning in 3 answers left out to fit the window, freed 8,000 tokens"
    assert "tool results" not in line


def test_reasoning_sent_empty_is_not_said_left_out() -> None:
    """DeepSeek asks the reasoning of tool calls back: where nothing else fits it goes out empty, which
    the line said as the model's reasoning "left out" (the event counted it as `thinking_left_out`)."""
    line = layer_line(shrink(thinking_left_out=1, reasoning_emptied=2), 8_000)
    assert line == ("context: the model's reasoning in an answer left out, the model's reasoning in 2 tool "
                    "calls sent empty to fit the window, freed 8,000 tokens")


def test_each_thing_left_out_is_named() -> None:
    line = layer_line(shrink(previews=2, rounds_left_out=1, first_message_cut=1, steps_folded=4), 8_000)
    assert line == ("context: 2 large tool results cut to previews, the oldest round left out, the first "
                    "message shortened, the 4 newest steps folded into a note to fit the window, freed 8,000 tokens")


def test_the_budget_layers_own_previews_keep_their_words() -> None:
    ev = Event("budget", "spill", 9_000, 1_000, ids=["a", "b"])
    assert layer_line(ev, 8_000) == "context: large tool results moved to files (a preview stays) (2 results), freed 8,000 tokens"


def test_rounds_folded_into_a_digest_count_the_results_among_them() -> None:
    """A digest folds rounds, not results: `(1 result)` after "old rounds folded" read as one round."""
    ev = Event("collapse", "commit", 9_000, 1_000, ids=["a"])
    assert layer_line(ev, 8_000) == "context: old rounds folded into a digest (1 tool result among them), freed 8,000 tokens"
    two = Event("collapse", "commit", 9_000, 1_000, ids=["a", "b"])
    assert "(2 tool results among them)" in (layer_line(two, 8_000) or "")
