"""Where the view layers are told the next compaction comes, once the schedule has declined one.

Past the cheapest point, a compaction that does not pay back yet (a young session, or the look-agains
it would cause) is not made; the view layers were still told it came at that point, already passed,
so every clearing or fold saved nothing (0 requests until the compaction) and stale tool results
stayed while the history grew to the threshold: an agent's eight turns of builds and reads, replayed
at 128K, cost what sending everything did ($0.1064, anthropic-clear $0.0852 at the same recall).
They are now told the compaction comes where the declined plan would pay back, the history growing
and the session expected to last one request longer with each (DeepSeek prices: hit $0.028/M)."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace

from compact_agent.context.decisions.economics import CompactionPlan, Growth, Prices
from compact_agent.context.decisions.schedule import Schedule
from compact_agent.context.plumbing.events import Budget


def manager() -> SimpleNamespace:
    return SimpleNamespace(settings=SimpleNamespace(priced_compaction=True), requests=5, overhead=0,
                           calibration=SimpleNamespace(tokens=lambda n: n),
                           limits=SimpleNamespace(threshold=100_000, output_reserve=8_000))


def schedule() -> Schedule:
    g = Growth()
    for size in range(0, 31_000, 1_000):  # 1,000 tokens a request
        g.observe(size)
    s = Schedule(Prices(), growth=g, reuse=None)
    s.rebuild_seen = 10_000
    return s


def test_without_a_declined_plan_the_next_compaction_is_expected_at_the_cheapest_point() -> None:
    s, cm = schedule(), manager()
    point = s.next_compaction_at(cm, view=True)  # type: ignore[arg-type]
    assert 20_000 < point < 30_000  # already passed by a 30,000-token history


def test_a_declined_plan_is_expected_where_it_pays_back() -> None:
    """Hand-computed: K + lost = 3,000 + 2,000 = 5,000 micro-USD against holding the history past its
    rebuild (10,000) for the session's expected rest, 5 requests and one more with each: 20,000 x 0.028
    x 5 = 2,800; 21,000 x 0.028 x 6 = 3,528; 22,000 x 0.028 x 7 = 4,312; 23,000 x 0.028 x 8 = 5,152:
    three requests on, at 33,000 tokens."""
    s, cm = schedule(), manager()
    s.last_plan = CompactionPlan(compact=False, point=25_000, fixed_cost=3_000e-6, saving=0.0, payback=8.9,
                                 horizon=5, rebuild=10_000, context=30_000, lost=2_000e-6)
    assert s.next_compaction_at(cm, view=True) == 33_000  # type: ignore[arg-type]
    s.last_plan = CompactionPlan(compact=False, point=25_000, fixed_cost=3_000e-6, saving=0.0, payback=99,
                                 horizon=5, rebuild=10_000, context=30_000, lost=900_000e-6)
    assert s.next_compaction_at(cm, view=True) == 100_000  # never before the threshold, where the window forces it
    s.last_plan = CompactionPlan(compact=True, point=25_000, fixed_cost=3_000e-6, saving=0.0, payback=1,
                                 horizon=5, rebuild=10_000, context=30_000, lost=0.0)
    assert s.next_compaction_at(cm, view=True) < 30_000  # made now: the point, as before


def test_a_view_rewrite_saves_over_no_more_requests_than_the_session_is_expected_to_last() -> None:
    """A session of 5 requests so far is expected to last 5 more (as `plan_compaction` expects): a clearing
    saves over those, not over the 30 it would take to grow to the next compaction. Clearing 4,000 tokens
    whose rewrite re-sends 10,000 once (10,000 x 0.252 = 2,520 micro-USD) saves 4,000 x 0.028 x 5 = 560:
    not paid, where over 30 requests (3,360) it was, and a session of a few small steps cost 28% more
    than sending everything."""
    b = Budget(window=128_000, threshold=100_000, tokens=20_000, now=datetime(2026, 1, 1, tzinfo=UTC),
               prices=Prices(), growth=1_000.0, compact_at=50_000)
    assert b.requests_until_compaction() == 30 and b.rewrite_pays(10_000, 4_000)
    young = Budget(window=128_000, threshold=100_000, tokens=20_000, now=datetime(2026, 1, 1, tzinfo=UTC),
                   prices=Prices(), growth=1_000.0, compact_at=50_000, horizon=5.0)
    assert young.requests_until_compaction() == 5 and not young.rewrite_pays(10_000, 4_000)
