"""A value of the wrong type given to the library's public API is said in words: numbers and text as
written, anything else by its type's name. The messages used to show Python reprs
(`not Decimal Decimal('64000')`, `not [1]`, `not PosixPath PosixPath('/x')`, `not b'bash'`)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import ModelRequest, UserPromptPart

from compact_agent.context import CompactionSettings, ContextManager, InMemoryStore, Limits, Prices
from compact_agent.context.arguments import counted

CASES: list[tuple[Callable[[], object], type[Exception], str]] = [
    (lambda: ContextManager(window=Decimal(64000)), TypeError,  # type: ignore[arg-type]
     "window must be a whole number of tokens (window=64_000) or None for the model's own, not Decimal"),
    (lambda: ContextManager(window=[64000]), TypeError,  # type: ignore[arg-type]
     "window must be a whole number of tokens (window=64_000) or None for the model's own, not list"),
    (lambda: ContextManager(max_output=Decimal(8192)), TypeError,  # type: ignore[arg-type]
     "max_output must be a whole number, at least 1, not Decimal"),
    (lambda: ContextManager(max_conversations=Path("/x")), TypeError,  # type: ignore[arg-type]
     "max_conversations must be a whole number, at least 1, not PosixPath"),
    (lambda: ContextManager(compactable_tools=b"bash"), TypeError,  # type: ignore[arg-type]
     "compactable_tools must be a list of tool names, not bytes"),
    (lambda: CompactionSettings(collapse_enabled=[1]), TypeError,  # type: ignore[arg-type]
     "CompactionSettings.collapse_enabled must be True or False, not list"),
    (lambda: CompactionSettings(microcompact_keep_recent=Decimal(3)), TypeError,  # type: ignore[arg-type]
     "CompactionSettings.microcompact_keep_recent must be a whole number, 0 or more, not Decimal"),
    (lambda: CompactionSettings(collapse_commit_fraction=Fraction(1, 2)), TypeError,  # type: ignore[arg-type]
     "CompactionSettings.collapse_commit_fraction must be a number, from 0 to 1, not Fraction"),
    (lambda: CompactionSettings(compactable_tools=b"bash"), TypeError,
     "CompactionSettings.compactable_tools must be a list of tool names, not bytes"),
    (lambda: Prices(miss=Decimal("0.28")), TypeError,  # type: ignore[arg-type]
     "Prices.miss must be a number of USD per million tokens, 0 or more, not Decimal"),
    (lambda: Prices(ttl_s=[300]), TypeError,  # type: ignore[arg-type]
     "Prices.ttl_s must be a number of seconds, 0 or more, not list"),
    (lambda: Prices(known=[1]), TypeError,  # type: ignore[arg-type]
     "Prices.known must be True or False, not list"),
    (lambda: InMemoryStore(max_archives=Decimal(3)), TypeError,  # type: ignore[arg-type]
     "InMemoryStore.max_archives must be a whole number, 0 or more, not Decimal"),
    (lambda: Limits.for_window(Decimal(64000), 8192), TypeError,  # type: ignore[arg-type]
     "a context window must be a whole number of tokens, not Decimal"),
    (lambda: counted(Decimal(5), ModelRequest([UserPromptPart("hello " * 20)])), ValueError,
     "token_counter returned Decimal for a message of about 34 tokens; it must return the message's token count "
     "(a whole number)"),
]


@pytest.mark.parametrize(("make", "error", "said"), CASES)
def test_a_wrong_value_is_named_by_its_type_not_by_its_python_repr(make: Callable[[], object],
                                                                  error: type[Exception], said: str) -> None:
    with pytest.raises(error) as caught:
        make()
    assert str(caught.value) == said


@pytest.mark.parametrize(("make", "said"), [
    (lambda: ContextManager(window="64000"),  # type: ignore[arg-type]
     "window must be a whole number of tokens (window=64_000) or None for the model's own, not str '64000'"),
    (lambda: ContextManager(window=1.5),  # type: ignore[arg-type]
     "window must be a whole number of tokens (window=64_000) or None for the model's own, not float 1.5"),
    (lambda: CompactionSettings(collapse_enabled="yes"),  # type: ignore[arg-type]
     "CompactionSettings.collapse_enabled must be True or False, not 'yes'"),
    (lambda: CompactionSettings(microcompact_keep_recent=None),  # type: ignore[arg-type]
     "CompactionSettings.microcompact_keep_recent must be a whole number, 0 or more, not None"),
    (lambda: Prices(miss=float("nan")), "Prices.miss must be a number of USD per million tokens, 0 or more, not nan"),
])
def test_numbers_and_text_are_still_said_as_written(make: Callable[[], Any], said: str) -> None:
    with pytest.raises((TypeError, ValueError)) as caught:
        make()
    assert str(caught.value) == said


def test_limits_for_a_window_name_a_max_output_of_the_wrong_type() -> None:
    """It failed with Python's own words: "'<' not supported between instances of 'int' and 'str'"."""
    with pytest.raises(TypeError) as caught:
        Limits.for_window(32_000, "8192")  # type: ignore[arg-type]
    assert str(caught.value) == "max_output must be a whole number of tokens, not str '8192'"
    assert Limits.for_window(32_000, 8_192).threshold == Limits.for_window(32_000, 8_192).threshold


def test_a_cache_hit_priced_above_a_miss_is_refused_in_one_line() -> None:
    """`Prices(miss=0.028, hit=0.28)` (the two swapped) was taken, and every decision priced a
    cache hit at ten times a miss; the terminal agent's price setting already refused it."""
    with pytest.raises(ValueError) as caught:
        Prices(miss=0.028, hit=0.28)
    assert str(caught.value) == ("Prices.hit (0.28) is above Prices.miss (0.028): a cache hit never costs more "
                                 "(give the same price twice for a model without a cache discount)")
    assert Prices(miss=1.0, hit=1.0).hit == 1.0


def test_the_largest_window_is_the_terminal_agents() -> None:
    """The library refuses a window the terminal agent's --window and setting refuse, and no other."""
    from compact_agent import cli_numbers
    from compact_agent.context import arguments

    assert arguments.MAX_WINDOW == cli_numbers.MAX_WINDOW
