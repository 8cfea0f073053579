"""`config` says the least gain microcompact clears a batch for: `microcompact_min_free_tokens` is at
most a tenth of the threshold where a run uses it, so in an 8,000-token window the layer clears for
520 tokens while `config` said `20000  default`, as it did of the other token figures a window
scales before they were said with the value in use. The value said is the one the layer acts on."""

from __future__ import annotations

from compact_agent.config import Settings
from compact_agent.context.layers.microcompact import Microcompact
from compact_agent.context.plumbing.settings import Limits
from compact_agent.settings_in_use import scaled
from tests.context.strategies import Conv, big_text, budget_for

MAX_OUTPUT = 8_192


def shown(settings: Settings, window: int) -> tuple[int, str | None]:
    return scaled(settings, window, MAX_OUTPUT)["microcompact_min_free_tokens"]


def pinned(least_gain: int = 20_000) -> Settings:
    """The count rule the case is built on, pinned (not the defaults, which may move): more than 12 live
    results, all but the newest 5 cleared, for a gain below the 20K least gain said outside small windows."""
    return Settings(microcompact_trigger=12, microcompact_keep_recent=5, microcompact_min_free_tokens=least_gain)


def test_said_as_a_tenth_of_the_threshold_where_that_is_less() -> None:
    s = pinned()  # its least gain 20K, more than a tenth of the 128K window's threshold
    assert shown(s, 8_000) == (520, "in the 8,000-token window")  # threshold 8,000 - 2,000 - 800 = 5,200
    assert shown(s, 128_000) == (10_700, "in the 128,000-token window")
    assert shown(s, 1_000_000) == (20_000, None)  # the setting, as it is
    assert shown(s.model_copy(update={"microcompact_min_free_tokens": 300}), 8_000) == (300, None)


def test_the_value_said_is_the_least_gain_the_layer_clears_for() -> None:
    conv = Conv().user("read everything")
    for i in range(14):  # more live results than microcompact_trigger (12): the count rule decides
        conv.call("read_file", {"path": f"f{i}.py"}, big_text(f"f{i}", 8_000))
    conv.say("done")

    def clears(least_gain: int, threshold: int) -> bool:
        layer = Microcompact(pinned(least_gain).compaction())
        return bool(layer.apply(conv.messages, budget_for(conv.messages, conv.t, threshold)).events)

    low, high = 1, 1_000_000  # the gain a batch frees here: the largest least gain it clears for
    while low < high:
        mid = (low + high + 1) // 2
        low, high = (mid, high) if clears(mid, 100_000_000) else (low, mid - 1)
    gain, s = low, pinned()
    assert gain < s.microcompact_min_free_tokens  # so the window decides what is used
    tried = set()
    # Where a tenth of the threshold crosses the gain (a window above 130K keeps 13K free and the
    # model's 8,192 for the answer): the layer clears while the value said is the gain, and not once it is one more.
    for window in range(gain * 10 + MAX_OUTPUT + 13_000 - 30, gain * 10 + MAX_OUTPUT + 13_000 + 30):
        said, why = shown(s, window)
        if said in (gain, gain + 1) and said not in tried:
            tried.add(said)
            threshold = Limits.for_window(window, MAX_OUTPUT, s.compaction()).threshold
            assert why == f"in the {window:,}-token window"
            assert clears(s.microcompact_min_free_tokens, threshold) == (said == gain), (window, said, gain)
    assert tried == {gain, gain + 1}
