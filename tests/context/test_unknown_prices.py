"""A model whose prices are not known (`Prices(known=False)`: a local server) compacts at the
threshold, never before it: the priced schedule's early compaction weighs a saving in prices it
does not have, and for a server that is free per token it only forgets."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from pydantic_ai.messages import ModelRequest, UserPromptPart

from compact_agent.config import Settings
from compact_agent.context import CompactionSettings, ContextManager
from compact_agent.context.decisions.economics import Growth, Prices
from compact_agent.context.layers.collapse import ContextCollapse
from compact_agent.context.layers.microcompact import Microcompact
from compact_agent.context.plumbing.tokens import estimate
from compact_agent.replay.ours import Ours
from compact_agent.replay.simulate import replay
from tests.context import keeps
from tests.context.test_collapse import long_conv
from tests.context.test_microcompact import reads
from tests.context.test_priced_pipeline import schedule_case as pipeline_case
from tests.context.test_records import schedule_case as records_case
from tests.replay.synthetic import session, sim


async def run_with(prices: Prices) -> Ours:
    s = sim(200_000)
    ours = Ours(s, Settings())
    ours.cm.prices = ours.cm.schedule.prices = prices  # as a model switch sets them
    try:
        await replay(session([("refactor the parser module step by step", [8_000] * 80)]), ours, s)
    finally:
        ours.close()
    return ours


async def test_unknown_prices_never_compact_before_the_threshold():
    known = await run_with(Prices())
    assert {c.event.detail.get("reason") for c in known.cm.compactions} == {"priced"}  # the same session, priced
    unknown = await run_with(Prices(known=False))
    threshold = unknown.cm.limits.threshold
    assert [c.tokens_before for c in unknown.cm.compactions if c.tokens_before < threshold] == []
    assert "priced" not in {c.event.detail.get("reason") for c in unknown.cm.compactions}



# -- nothing else is priced either: thresholds and counts decide, as with priced_compaction off -----

UNKNOWN = Prices(known=False)
GO = [ModelRequest(parts=[UserPromptPart("go")])]


def manager(prices: Prices, window: int, growth_per_request: int, now: datetime,
            settings: CompactionSettings | None = None) -> ContextManager:
    cm = ContextManager(window=window, prices=prices, settings=settings)
    cm.schedule.growth = Growth(total=50 * growth_per_request, requests=50)
    cm.clock = lambda: now  # the newest response is as old as the cache is fresh
    return cm


def test_unknown_prices_leave_microcompact_to_its_count_trigger():
    # 14 reads of ~3K tokens each, 42,362 in all, in a 200K window (threshold 178,808). Priced (2K of
    # growth a request, the next compaction expected at 17,362), clearing the nine oldest re-sends
    # nearly the whole prompt for a few requests' saving: not done. Unpriced, the count trigger
    # decides: 14 live results > 12, and clearing all but the newest 5 frees 26,928 tokens >=
    # min(20,000, 178,808 // 10).
    conv = reads(14, size=12_000)
    counted = CompactionSettings(microcompact_keep_recent=5, microcompact_trigger=12, microcompact_min_free_tokens=20_000)
    for prices, cleared in ((Prices(), []), (UNKNOWN, [("count", 9)])):
        cm = manager(prices, 200_000, 2_000, conv.t, counted)  # the numbers above pinned, not the defaults
        budget = cm.budget(estimate(conv.messages))
        assert (budget.prices is None) is (not prices.known)
        out = Microcompact(cm.settings).apply(conv.messages, budget)
        assert [(e.trigger, len(e.ids)) for e in out.events] == cleared


def test_unknown_prices_leave_collapse_to_its_threshold(tmp_path: Path):
    # 12,653 tokens of six finished turns in a 20K window: threshold 13,000, collapse commits past
    # 0.9 x 13,000 = 11,700. Priced (1K of growth a request), folding the oldest rounds re-sends what
    # follows them to save ~4,000 tokens on the four requests before the compaction expected at 12,863:
    # not done. Unpriced, past 11,700 is enough.
    conv = long_conv()
    for prices, commits in ((Prices(), 0), (UNKNOWN, 1)):
        cm = manager(prices, 20_000, 1_000, conv.t)
        budget = cm.budget(estimate(conv.messages))
        assert (budget.threshold, budget.collapse_commit) == (13_000, 11_700)
        out = ContextCollapse(cm.settings, tmp_path / f"log{commits}").apply(conv.messages, budget)
        assert len(out.events) == commits


def test_unknown_prices_compact_at_the_threshold_without_weighing_what_waiting_saves():
    # test_priced_pipeline's case: priced, a 36K threshold crossed again after 8 requests does not pay
    # a compaction back (4,480 < 4,956), so it waits for the hard limit. Unpriced, it compacts there.
    cm, schedule = pipeline_case(36_000)
    assert schedule.reason(cm, GO, 37_000, suppressed=False) == ""
    schedule.prices = UNKNOWN
    assert schedule.threshold_pays(cm, GO, 30_000, 10_000)
    assert schedule.reason(cm, GO, 37_000, suppressed=False) == "threshold"


def test_unknown_prices_keep_a_record_only_where_it_is_no_longer_than_the_summary():
    # test_records' case: a 3,000-token record, 1,000 longer than the 2,000-token summary, is priced
    # cheaper than the summary request at DeepSeek's prices. Without prices it is not known to be:
    # only a record no longer than the summary costs less at any prices (no request, fewer tokens).
    cm, schedule = records_case()
    assert schedule.record_pays(cm, GO, 3_000, tokens_before=50_000, reason="window")
    schedule.prices = UNKNOWN
    assert not schedule.record_pays(cm, GO, 3_000, tokens_before=50_000, reason="window")
    assert schedule.record_pays(cm, GO, 2_000, tokens_before=50_000, reason="window")
    # Where neither leaves room for a request (47K kept: 57,000 of the hard limit's 58,720), a
    # 2,000-token record is kept as before only if it frees a tenth of the history: 57,000 <=
    # 64,000 - 54,000 / 10, and not from 62,000 (56,800).
    cm, schedule = records_case(rebuild=47_000)
    schedule.prices = UNKNOWN
    assert schedule.record_pays(cm, GO, 2_000, tokens_before=64_000, reason="window")
    assert not schedule.record_pays(cm, GO, 2_000, tokens_before=62_000, reason="window")


def test_unknown_prices_keep_the_compaction_message_only_where_it_holds_nothing_a_new_one_would_not():
    # Priced, keeping a 5,000-token message of which a new one would carry 4,000 again pays (980
    # saved against 641 held); without prices the 1,000 it holds besides is not known to be worth it.
    cm, schedule = records_case()
    assert schedule.incremental_pays(cm, GO, 5_000, 4_000, reason="window")
    schedule.prices = UNKNOWN
    assert not schedule.incremental_pays(cm, GO, 5_000, 4_000, reason="window")
    assert schedule.incremental_pays(cm, GO, 4_000, 4_000, reason="window")


def test_unknown_prices_compact_at_the_threshold_only_what_pays_for_the_prefix_it_rebuilds() -> None:
    # test_priced_pipeline's case (10K of system prompt, 2K of growth a request, 2K summaries, a 64K
    # window: hard limit 58,720), unpriced, a 40,000-token request over its 36K threshold: 30,000 of
    # history. Priced at the default ratios (miss 0.28, hit 0.028, output 0.42 per million):
    # - keeping 29,500, the history stays over the threshold: it puts no compaction off, and holds 500
    #   fewer tokens for one request, 500 x 0.028 = 14, for 29,500 x 0.252 = 7,434 sent again: not made;
    # - keeping 10,000 (K = 10,000 x 0.28 + the summary request's 2,156 = 4,956), it leaves 16,000 of
    #   growth before the threshold, 8 requests: 20,000 x 0.028 x 8 = 4,480 held, and 20,000 x 4,956 /
    #   16,000 = 6,195 of compactions put off, against 10,000 x 0.252 = 2,520: made.
    cm, schedule = pipeline_case(36_000)
    schedule.prices = UNKNOWN
    cm.compactor = keeps.compactor(29_500)
    assert not schedule.threshold_pays(cm, GO, 30_000, 10_000)
    assert schedule.reason(cm, GO, 40_000, suppressed=False) == ""
    # Over the hard limit the request must be brought under it: compacted, as it frees a tenth
    # (49,000 of history, 29,500 kept).
    assert schedule.reason(cm, GO, 59_000, suppressed=False) == "window"
    cm.compactor = keeps.compactor(10_000)
    assert schedule.threshold_pays(cm, GO, 30_000, 10_000)
    assert schedule.reason(cm, GO, 40_000, suppressed=False) == "threshold"
    # With `priced_compaction` off, thresholds alone decide, as they did.
    cm.compactor = keeps.compactor(29_500)
    cm.settings = Settings(priced_compaction=False)
    assert schedule.reason(cm, GO, 40_000, suppressed=False) == "threshold"
