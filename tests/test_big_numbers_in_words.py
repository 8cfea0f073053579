"""A number in a config file written with an exponent (`context_window = 1e9`) is said as a whole
number when it is one: the line read `not 1000000000.0`, a form the user never wrote."""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_agent.setting_values import shown
from tests.settings_cases import refused


def test_a_window_written_with_an_exponent(user_config: Path, tmp_path: Path) -> None:
    user_config.write_text("context_window = 1e9\n")
    assert refused(tmp_path) == (f"bad value for context_window (from {user_config}): must be at most "
                                 "10,000,000 tokens, not 1,000,000,000")


def test_a_whole_number_setting_written_with_an_exponent(user_config: Path, tmp_path: Path) -> None:
    user_config.write_text("max_retries = 2e7\n")
    assert refused(tmp_path).endswith("not 20,000,000")


@pytest.mark.parametrize(("value", "said"), [
    (1e9, "1,000,000,000"), (-3e6, "-3,000,000"), (1e20, "1e+20"),  # past a quadrillion, as an exponent
    (2.0, "2.0"), (0.5, "0.5"), (32000.0, "32000.0"), (1_000_000_000, "1000000000"),  # as written
])
def test_numbers_in_words(value: object, said: str) -> None:
    assert shown(value) == said
