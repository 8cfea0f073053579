"""`Limits.for_window(window, max_output)` refuses a `max_output` under 1, as the manager does.

`Limits.for_window(5_000, -1)` made limits with `output_reserve=-1`: no room kept for the answer, and a
threshold of 4,501 of the 5,000 where the default keeps 3,250, with no word; `ContextManager(max_output=-1)`
was already refused."""

from __future__ import annotations

import pytest

from compact_agent.context import Limits


@pytest.mark.parametrize("max_output", [0, -1])
def test_a_max_output_under_one_is_refused(max_output: int) -> None:
    with pytest.raises(ValueError) as caught:
        Limits.for_window(5_000, max_output)
    assert str(caught.value) == f"max_output must be a whole number of tokens, at least 1, not {max_output}"


def test_a_max_output_of_one_token_keeps_that_room() -> None:
    assert Limits.for_window(5_000, 1).output_reserve == 1
