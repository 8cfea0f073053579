"""A reach into a result never cited again (`cold_result`: what microcompact would clear) is measured
over the last 100 responses, the other kinds over the recent 30 (reuse.py `RARE_EVIDENCE`, chosen by
`benchmarks/stall_calibration.py`'s log-loss). Hand-computed with the rule of succession, (k+1)/(n+2)."""

from __future__ import annotations

import pytest

from compact_agent.context.decisions.reuse import RARE_EVIDENCE, RECENT, Reach, Reuse


def session(deep_at: int, responses: int = 120) -> Reuse:
    """`responses` responses, the one `deep_at` responses ago reaching 20K back in every kind."""
    r = Reuse()
    for k in range(responses, 0, -1):
        d = 20_000 if k == deep_at else 0
        r.reaches.append(Reach(d, d, d, d))
        while len(r.reaches) > RARE_EVIDENCE:
            r.reaches.popleft()
    return r


def test_a_rare_reach_into_an_unused_result_counts_over_100_responses_the_others_over_30() -> None:
    assert (RECENT, RARE_EVIDENCE) == (30, 100)
    quiet = session(deep_at=0)  # none of them reached back
    assert quiet.stall_rate(10_000, "cold_result") == pytest.approx(1 / 102)  # was 1/32: a 3% floor
    assert quiet.stall_rate(10_000, "cold") == pytest.approx(1 / 32)
    older = session(deep_at=50)  # one, 50 responses ago: out of the recent 30, in the last 100
    assert older.stall_rate(10_000, "cold_result") == pytest.approx(2 / 102)
    assert older.stall_rate(10_000, "any") == pytest.approx(1 / 32)
    assert older.stall_rate_over(10_000, 0, 5, "cold_result") == pytest.approx(2 / 102)
    recent = session(deep_at=10)
    assert recent.stall_rate(10_000, "any") == pytest.approx(2 / 32)
