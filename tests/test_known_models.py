"""The models the registry knows are the ones docs/usage.md says come with a window and prices,
among them the OpenAI models the README's library example and most users name."""

from __future__ import annotations

import re
from pathlib import Path

from compact_agent.models import REGISTRY, UNKNOWN_WINDOW, model_info

USAGE = Path(__file__).resolve().parents[1] / "docs" / "usage.md"


def test_the_known_models_the_usage_page_lists_are_the_registry():
    text = " ".join(USAGE.read_text(encoding="utf-8").split())
    listed = re.search(r"Known models \(([^)]*)\) come with", text)
    assert listed is not None
    assert set(re.findall(r"`([^`]+)`", listed.group(1))) == set(REGISTRY)


def test_gpt_4o_and_gpt_4_1_mini_come_with_their_window_and_prices():
    for name, window in (("gpt-4o", 128_000), ("gpt-4.1-mini", 1_047_576)):
        info = model_info(name)
        assert (info.provider, info.window) == ("openai", window) and info.window != UNKNOWN_WINDOW
        assert info.input > info.cache_read > 0 and info.output > info.input
