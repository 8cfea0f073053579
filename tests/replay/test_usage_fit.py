"""The analyzer's fit of recorded usage to a transcript whose agent trimmed what it sent: honest usage
of a session whose layers moved or cleared tool results before any compaction is fitted on the
requests before the first trim, not called "a stand-in model's numbers"."""

from __future__ import annotations

import pytest
from pydantic_ai.messages import ModelResponse
from pydantic_ai.usage import RequestUsage

from compact_agent.replay.importers import Transcript
from compact_agent.replay.simulate import calibrate
from compact_agent.replay.usage_fit import leading_points

from .synthetic import session


def billed(first: int, factor: float) -> Transcript:
    """A session billed as 1.3 × estimate + 2,000 for its first `first` requests, then for `factor`
    times that (below the line when under 1: the agent sent less than its history)."""
    t = session([("do it", [4_000] * 12)], usage=(1.3, 2_000))
    responses = [m for m in t.messages if isinstance(m, ModelResponse)]
    for r in responses[first:]:
        r.usage = RequestUsage(input_tokens=round(factor * r.usage.input_tokens), output_tokens=20)
    return t


def test_a_session_trimmed_before_it_compacted_is_fitted_on_its_first_requests():
    tm = calibrate(billed(5, 0.5))
    assert (tm.ratio, tm.overhead, tm.samples) == (pytest.approx(1.3, abs=0.001), pytest.approx(2_000, abs=5), 5)
    assert tm.error_mean is not None and tm.error_mean < 0.01
    assert tm.notes == ("fitted on the first 5, before the recording agent trimmed what it sent",)


def test_usage_that_rises_above_its_first_requests_is_still_not_believed():
    tm = calibrate(billed(5, 2.0))  # billed for more than the history: not a trim
    assert (tm.ratio, tm.overhead) == (1.0, 0)
    assert "does not follow the messages" in tm.notes[0]


def test_usage_that_fits_whole_is_fitted_whole():
    tm = calibrate(billed(13, 1.0))
    assert (tm.ratio, tm.overhead, tm.samples, tm.notes) == (pytest.approx(1.3, abs=0.001), pytest.approx(2_000, abs=5), 13, ())


def test_too_few_first_requests_are_no_fit():
    assert leading_points([(100, 1_100), (2_500, 600), (5_000, 700), (7_000, 800)]) == 0
    assert leading_points([(100, 1_100), (2_500, 3_500), (5_000, 6_000), (7_000, 3_000)]) == 3
