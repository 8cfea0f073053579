"""The cost model's decisions on small cases computed by hand (DeepSeek prices: miss $0.28/M, hit
$0.028/M, output $0.42/M)."""

from __future__ import annotations

import math

import pytest

from compact_agent.context.decisions.economics import Growth, Prices, plan_compaction, rewrite_pays

DEEPSEEK = Prices()
ANTHROPIC = Prices(miss=3.0, hit=0.30, output=15.0, write=3.75, ttl_s=300)


def test_prices_cost_and_resend():
    assert DEEPSEEK.resend == 0.28  # no write surcharge: a re-sent token is a miss
    assert ANTHROPIC.resend == 3.75  # re-sent tokens are written to the cache at 1.25x
    # 1M hits + 1M re-sent + 1M output
    assert DEEPSEEK.cost(hits=1e6, resent=1e6, output=1e6) == pytest.approx(0.028 + 0.28 + 0.42)


def test_growth_is_the_mean_new_tokens_per_request_and_ignores_shrinking():
    g = Growth()
    for size in (1_000, 3_000, 4_000, 4_000, 10_000):
        g.observe(size)
    assert g.requests == 4 and g.rate == pytest.approx((2_000 + 1_000 + 0 + 6_000) / 4)
    g.rebase(2_000)  # a compaction shrank the history: not negative growth
    g.observe(2_500)
    assert g.rate == pytest.approx((9_000 + 500) / 5)


def test_the_compaction_point_is_the_economic_order_quantity():
    # K = (overhead + context) x hit + (rebuild + 700 instruction) x miss + summary x output
    #   = 40,000 x 0.028 + 10,700 x 0.28 + 2,000 x 0.42 = 1,120 + 2,996 + 840 = 4,956 (in $1e-6)
    # K_eff = K + rebuild x hit = 4,956 + 280 = 5,236; D* = sqrt(2 x 2,000 x 5,236 / 0.028) = 27,350
    plan = plan_compaction(context=30_000, rebuild=10_000, overhead=10_000, summary_tokens=2_000, growth=2_000,
                           requests_so_far=50, prices=DEEPSEEK)
    assert plan.fixed_cost == pytest.approx(4_956e-6)
    assert plan.point == pytest.approx(10_000 + math.sqrt(2 * 2_000 * 5_236 / 0.028), rel=1e-9)
    assert round(plan.point) == 37_350
    # saving = (30,000 - 10,000) x hit = 560e-6 per request; payback = 4,956 / 560 = 8.85 requests
    assert plan.saving == pytest.approx(560e-6) and plan.payback == pytest.approx(4_956 / 560)
    assert not plan.compact  # 30K is below the 37.3K point: holding is still cheaper than compacting


def test_what_is_new_since_the_last_request_is_no_part_of_a_compactions_cost():
    # The newest round (3,000 tokens of a fresh tool result and the response that asked for it) is
    # kept and would go uncached anyway; nor is it in the summary request, which is the request last
    # sent (37,000 tokens, cached) with the instruction: K = (10,000 - 3,000) x 0.28 + 37,000 x 0.028
    # + 196 + 840 = 1,960 + 1,036 + 1,036 (the instruction and the summary) = 4,032; K_eff = 4,312;
    # D* = sqrt(2 x 2,000 x 4,312 / 0.028) = 24,819: 2.5K sooner than 37,350.
    kw = dict(context=30_000, rebuild=10_000, overhead=10_000, summary_tokens=2_000, growth=2_000,
              requests_so_far=50, prices=DEEPSEEK)
    plan = plan_compaction(**kw, fresh=3_000)  # type: ignore[arg-type]
    assert plan.fixed_cost == pytest.approx(4_032e-6)
    assert round(plan.point) == 34_819
    # Fresh tokens beyond the rebuild are not a saving: a compaction costs at least its summary
    # request (10,000 x 0.028 + 196 + 840).
    assert plan_compaction(**kw, fresh=50_000).fixed_cost == pytest.approx(1_316e-6)  # type: ignore[arg-type]
    # The schedule takes the newest request's growth as what is fresh now, the median as what will be.
    from compact_agent.context.decisions.economics import Growth

    g = Growth()
    for size in (0, 1_000, 4_000, 4_500):
        g.observe(size)
    assert g.steps[-1] == 500 and g.typical_step == 1_000
    from types import SimpleNamespace

    from compact_agent.context.decisions.schedule import Schedule

    s = Schedule(DEEPSEEK, growth=g, reuse=None)
    cm = SimpleNamespace(requests=50, limits=SimpleNamespace(output_reserve=8_000))  # room for a 2,000 summary
    now = s._plan(cm, 30_000, 10_000, 10_000)  # type: ignore[arg-type]
    assert now.fixed_cost == pytest.approx((9_500 * 0.28 + 39_500 * 0.028 + 196 + 840) * 1e-6)  # 500 fresh now
    later = s._plan(cm, 0, 10_000, 10_000, fresh=g.typical_step)  # type: ignore[arg-type]
    assert later.fixed_cost == pytest.approx((9_000 * 0.28 + 280 + 196 + 840) * 1e-6)  # a typical 1,000


def test_compactions_that_call_no_model_come_sooner():
    # Half the compactions so far kept a record (no summary request): K = rebuild x miss + half the
    # request = 2,800 + (1,120 + 196 + 840) / 2 = 3,878; K_eff = 4,158; D* = sqrt(2 x 2,000 x 4,158 / 0.028).
    plan = plan_compaction(context=30_000, rebuild=10_000, overhead=10_000, summary_tokens=2_000, growth=2_000,
                           requests_so_far=50, prices=DEEPSEEK, summary_share=0.5)
    assert plan.fixed_cost == pytest.approx(3_878e-6)
    assert round(plan.point) == 34_372  # 10,000 + 24,372: 3K sooner than with summaries only (37,350)
    # The schedule's share: the compactions so far with one more summary counted.
    from compact_agent.context.decisions.schedule import Schedule

    s = Schedule(DEEPSEEK)
    assert s.summary_share == 1.0
    s.compactions, s.full_summaries = 3, 1
    assert s.summary_share == 0.5


def test_a_record_on_an_expired_cache_costs_less_than_sending_the_cold_history():
    kw = dict(rebuild=5_000, overhead=10_000, summary_tokens=2_000, growth=2_000, requests_so_far=50,
              prices=DEEPSEEK, summary_share=0.0)
    # Warm: K = 5,000 x 0.28 = 1,400; K_eff = 1,540; the point 5,000 + sqrt(2 x 2,000 x 1,540 / 0.028) = 19,832.
    warm = plan_compaction(context=15_000, **kw)
    assert round(warm.fixed_cost * 1e6) == 1_400 and round(warm.point) == 19_832 and not warm.compact
    # Cold: not compacting would send all 15,000 tokens at 0.28 instead of 0.028, which the record
    # saves: K = 1,400 - 15,000 x 0.252 = -2,380; nothing to wait for, it compacts now.
    cold = plan_compaction(context=15_000, cold=True, **kw)
    assert round(cold.fixed_cost * 1e6) == -2_380 and cold.point == 5_000 and cold.compact
    # The look-agains it would cause still count: at 200 per request for 50 requests, payback =
    # (-2,380 + 10,000) / (10,000 x 0.028) = 27.2 requests, within the 50 expected.
    assert plan_compaction(context=15_000, cold=True, forget=200e-6, **kw).payback == pytest.approx(27.214, abs=1e-3)
    assert not plan_compaction(context=15_000, cold=True, forget=400e-6, **kw).compact
    # The part new since the last request is uncached either way: of 5,000 new, the record re-sends
    # none that was cached, and the cold saving is on the other 10,000: K = 0 - 10,000 x 0.252.
    assert round(plan_compaction(context=15_000, cold=True, fresh=5_000, **kw).fixed_cost * 1e6) == -2_520
    # A summary request re-sends the cold history itself: a summary saves nothing more.
    summary = dict(kw, summary_share=1.0)
    assert plan_compaction(context=15_000, cold=True, **summary) == plan_compaction(context=15_000, **summary)


def test_past_the_point_it_compacts_unless_the_session_is_too_young_to_pay_back():
    kw = dict(rebuild=10_000, overhead=10_000, summary_tokens=2_000, growth=2_000, prices=DEEPSEEK)
    old = plan_compaction(context=40_000, requests_so_far=50, **kw)
    assert old.compact and old.payback < 50
    # The same context after 5 requests: a session that young is expected to end before
    # the compaction (payback 40,000x0.028+... / 30,000x0.028 = 6.3 requests) has paid back.
    young = plan_compaction(context=40_000, requests_so_far=5, **kw)
    assert young.payback == pytest.approx(old.payback) and young.payback > 5 and not young.compact


def test_slower_growth_or_dearer_rebuild_moves_the_point_later():
    base = dict(context=30_000, overhead=10_000, summary_tokens=2_000, requests_so_far=100, prices=DEEPSEEK)
    slow = plan_compaction(rebuild=10_000, growth=500, **base)
    fast = plan_compaction(rebuild=10_000, growth=2_000, **base)
    assert slow.point - 10_000 == pytest.approx((fast.point - 10_000) / 2)  # D* ~ sqrt(growth)
    # With a cache-write surcharge re-sending the rebuild costs more, so compactions are rarer.
    anthropic = plan_compaction(rebuild=10_000, growth=2_000, **{**base, "prices": ANTHROPIC})
    assert anthropic.point > fast.point


def test_a_view_rewrite_pays_only_when_its_savings_outlast_the_re_sent_tail():
    # Re-sending 30,000 tokens once costs 30,000 x (0.28 - 0.028) = 7,560; removing 20,000 saves
    # 20,000 x 0.028 = 560 per request: 13.5 requests to pay back.
    assert not rewrite_pays(tail=30_000, removed=20_000, requests=13, prices=DEEPSEEK)
    assert rewrite_pays(tail=30_000, removed=20_000, requests=14, prices=DEEPSEEK)
    # Sliding one small result out each request never pays.
    assert not rewrite_pays(tail=30_000, removed=500, requests=100, prices=DEEPSEEK)


def test_the_cache_lifetime_follows_the_prices_given():
    from compact_agent.context import ContextManager

    assert ContextManager(window=64_000).cache_ttl_s == 3_600  # DeepSeek's hour
    assert ContextManager(window=64_000, prices=ANTHROPIC).cache_ttl_s == 300  # Anthropic's five minutes


def test_a_summary_written_from_a_cold_cache_costs_its_prefix_at_the_miss_price():
    # A summary model of its own (or a PromptedOutput agent's instruction before the messages) reads
    # none of the run's cached prefix: request = 40,000 x 0.28 + 196 + 840 = 12,236, K = 2,800 + 12,236
    # = 15,036; K_eff = 15,316; D* = sqrt(2 x 2,000 x 15,316 / 0.028) = 46,776: 19K later than 37,350.
    kw = dict(context=30_000, rebuild=10_000, overhead=10_000, summary_tokens=2_000, growth=2_000,
              requests_so_far=50, prices=DEEPSEEK)
    cold = plan_compaction(**kw, summary_hits=0.0)  # type: ignore[arg-type]
    assert cold.fixed_cost == pytest.approx(15_036e-6)
    assert round(cold.point) == 56_776
    # Half of it read from the cache: 20,000 x 0.028 + 20,000 x 0.28 + 196 + 840 + 2,800 = 9,996.
    assert plan_compaction(**kw, summary_hits=0.5).fixed_cost == pytest.approx(9_996e-6)  # type: ignore[arg-type]
    assert plan_compaction(**kw).fixed_cost == pytest.approx(4_956e-6)  # as the shared prefix, by default


def test_the_schedule_measures_the_summaries_cache_reads_once_the_provider_reports_any():
    from compact_agent.context.decisions.schedule import Schedule

    s = Schedule(DEEPSEEK)
    cold = {"requests": 1, "input_tokens": 40_700, "cache_read_tokens": 0, "output_tokens": 2_000}
    s.learn_summary_cache(cold)
    assert s.summary_hits == 1.0  # no request of the run has reported a cache read: the 0 tells nothing
    s.caches_reported = True
    s.learn_summary_cache(cold)
    assert s.summary_hits == 0.0
    # The instruction each request appends is never cached: 40,000 of the 40,700 tokens could be.
    s.learn_summary_cache({"requests": 1, "input_tokens": 40_700, "cache_read_tokens": 40_000, "output_tokens": 9})
    assert s.summary_hits == pytest.approx(0.5)
    s.learn_summary_cache({"requests": "1", "input_tokens": -5, "cache_read_tokens": 0})  # malformed: ignored
    assert (s.summary_sent, s.summary_cached) == (80_000, 40_000)
