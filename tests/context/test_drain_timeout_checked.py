"""`await cm.drain(timeout=...)` names a timeout that is no number of seconds, whether or not notes are
being written.

`drain(timeout="30")` (a value read from a config file) returned without a word while no notes request
was in flight, and with one in flight failed inside asyncio ("unsupported operand type(s) for +: 'float' and
'str'"), leaving the request running past the end it was meant to bound. It is refused in one
line at the call, before anything is waited for, in every case."""

from __future__ import annotations

import pytest

from compact_agent.context import ContextManager


@pytest.mark.parametrize(("timeout", "error", "said"), [
    ("30", TypeError, "drain: timeout must be a number of seconds or None, not str '30'"),
    (True, TypeError, "drain: timeout must be a number of seconds or None, not bool True"),
    (-1, ValueError, "drain: timeout must be a number of seconds, 0 or more, not -1"),
])
async def test_a_timeout_that_is_no_number_of_seconds_is_refused(timeout: object, error: type[Exception],
                                                                  said: str) -> None:
    cm = ContextManager(window=8_000)
    with pytest.raises(error) as caught:
        await cm.drain(timeout)  # type: ignore[arg-type]
    assert str(caught.value) == said


@pytest.mark.parametrize("timeout", [None, 0, 2.5])
async def test_seconds_or_none_are_taken(timeout: float | None) -> None:
    await ContextManager(window=8_000).drain(timeout)
