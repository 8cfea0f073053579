"""A list of strategies given to one -s says how to give them."""

from __future__ import annotations

import pytest

from compact_agent.replay.baselines import factories


def test_a_comma_list_in_one_strategy_option_says_to_give_each_its_own() -> None:
    """`-s ours,codex` was only 'unknown strategy 'ours,codex' (choose from ours, ...)', naming the
    very strategies given, so the person could not see what was wrong."""
    with pytest.raises(ValueError, match=r"^unknown strategy 'ours, codex'; name each with an -s of its own: "
                                         r"-s ours -s codex \(choose from ours, none, "):
        factories(["ours, codex"])
    with pytest.raises(ValueError, match=r"^unknown strategy 'our'; did you mean ours\? \("):
        factories(["our"])
