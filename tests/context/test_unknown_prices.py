"""A model whose prices are not known (`Prices(known=False)`: a local server) compacts at the
threshold, never before it: the priced schedule's early compaction weighs a saving in prices it
does not have, and for a server that is free per token it only forgets."""

from __future__ import annotations

from compact_agent.config import Settings
from compact_agent.context.decisions.economics import Prices
from compact_agent.replay.ours import Ours
from compact_agent.replay.simulate import replay
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

