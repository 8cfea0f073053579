"""How a server cutting prompts without saying so is told from its usage reports (silent_cut.py), on
sequences of (reported, estimated) worked out by hand. The estimate here is exact until a server cuts
(ratio 1, no fixed part), so a report's prediction is its estimate.

An Ollama server keeps the newest messages that fit its window, whole: the sizes it reports vary by a
message's size. A cut was found only from two reports in a row within half a percent (25 of 28
requests cut against a 9,000 window, the task gone from each); the first of such a pair could be a
request the server took whole (its report what the estimate said), and the window learned its size,
below what the server had been seen to take; and reports of prompts cut before the cut was found
stayed in the calibration, sizes ~35% low, so the next request went over the window just learned."""

from __future__ import annotations

import pytest

from compact_agent.context.plumbing.tokens import Calibration


def observed(*reports: tuple[int, int]) -> tuple[Calibration, list[bool]]:
    c = Calibration()
    return c, [c.observe(reported, estimated) for reported, estimated in reports]


def test_one_report_far_below_the_estimate_of_a_request_that_grew_is_a_cut() -> None:
    """The first of a 9,000 window's cuts (F1): 9,436 sent, 6,690 kept, after requests taken whole."""
    c, learned = observed((1_189, 1_189), (3_903, 3_903), (6_652, 6_652), (6_690, 9_436))
    assert learned == [True, True, True, False]
    assert c.cut_to() == 6_690
    assert c.ratio == 1.0 and c.samples == 3  # the cut report taught nothing of the tokenizer


def test_a_cut_report_below_the_last_taken_whole_learns_the_larger() -> None:
    """A window is at least every size the server took: 5,000 whole, then a cut keeping 4,000 (its
    newest messages less one large one) and one keeping 4,010. The pair said 4,010."""
    c, learned = observed((2_000, 2_000), (5_000, 5_000), (4_000, 7_000), (4_010, 7_500))
    assert learned == [True, True, False, False]
    assert c.cut_to() == 5_000


def test_a_report_that_agreed_with_its_estimate_is_not_half_of_a_pair() -> None:
    """(F3) 10,200 for a request estimated 10,000 (2% over: the estimate's error measured), then 10,230
    for one 3% larger: 2% under its prediction, within twice that error, as a request sent whole is.
    The pair took it for a window of 10,230 (a 6,000 window was kept as 3,907 so, below the agent's own
    minimum, for later sessions)."""
    c, learned = observed((5_000, 5_000), (10_200, 10_000), (10_230, 10_300))
    assert learned == [True, True, True]
    assert c.cut_to() is None


def test_two_reports_of_one_size_after_one_that_did_not_agree_are_still_a_cut() -> None:
    """A report a little under its estimate (3% here) may be a small cut: the next of its size, for a
    request that grew, says it was."""
    c, _ = observed((5_000, 5_000), (10_000, 10_000), (10_030, 10_340), (10_040, 10_800))
    assert c.cut_to() == 10_040


def test_the_reports_of_prompts_cut_before_the_cut_was_found_are_unlearned() -> None:
    """(F2) 3,500 for a request of 3,900 (10% under: a cut, or prose counted cheaper) is learned from; the
    next report, 3,300 for 4,500, is a cut, and so may the one before have been: the calibration goes
    back to what the requests taken whole taught, not to a ratio of 0.9 that would send the next
    request over the window learned. (Two reports of one size found the cut, and only the last was
    gone back on.)"""
    c, learned = observed((1_000, 1_000), (2_000, 2_000), (3_000, 3_000), (3_500, 3_900), (3_300, 4_500),
                          (3_310, 5_000))
    assert learned == [True, True, True, True, False, False]
    assert c.cut_to() == 3_500  # the largest size the server took, of a prompt cut or not
    assert c.ratio == 1.0 and c.fixed == 0.0 and c.samples == 3


def test_going_back_never_counts_less_than_before() -> None:
    """A first report above its estimate (1.2: a dense tokenizer) and one below (0.9) before a cut: the
    second may be a cut report; going back to the state before it counts more, the first's ratio."""
    c, _ = observed((1_440, 1_200), (3_150, 3_500), (3_100, 5_000))
    assert c.cut_to() is not None
    assert c.ratio == pytest.approx(1.2)


@pytest.mark.parametrize("ratio", [0.5, 2.0])
def test_a_tokenizer_twice_or_half_characters_over_four_is_learned_and_no_cut(ratio: float) -> None:
    c = Calibration()
    for est in range(2_000, 40_000, 2_500):
        assert c.observe(round(ratio * est), est)
    assert c.cut_to() is None and c.ratio == pytest.approx(ratio, rel=0.01)


def test_a_large_part_in_text_counted_cheaper_is_no_cut() -> None:
    """Calibrated on code at 1.0, then a result of 12,000 estimated in prose its tokenizer counts at
    0.75: the whole is 19% under its prediction, but the part it grew by was counted at 3/4 of its size."""
    c, learned = observed((2_000, 2_000), (4_000, 4_000), (13_000, 16_000))
    assert learned[-1] and c.cut_to() is None


def test_reports_of_what_the_prompt_cache_did_not_hold_are_no_cut() -> None:
    """A server that reports only the tokens it did not have cached: the size of what each request
    added, far below the last taken whole. No window of such a size is learned."""
    c, _ = observed((2_000, 2_000), (4_000, 4_000), (1_500, 5_500), (1_400, 6_900), (1_600, 8_500))
    assert c.cut_to() is None


def test_a_first_report_of_a_request_smaller_than_the_cut_stays_learned() -> None:
    """No tokenizer makes more than four times characters/4 of a request: one estimated at 1,000 was
    not cut to a window of 4,096."""
    c, _ = observed((1_000, 1_000), (4_096, 6_000), (4_096, 7_500))
    assert c.cut_to() == 4_096 and c.samples == 1


def test_a_report_smaller_than_the_one_before_for_a_request_that_grew_is_a_cut() -> None:
    """Before any report agreed with its prediction (the first's ratio, 1.15, took the request's
    framing for the tokenizer, and the second came 7% under it): 2,950 after 3,000, for a request
    that grew by half, is no tokenizer's count but what the server kept."""
    c, learned = observed((1_210, 1_050), (3_000, 2_800), (2_950, 4_400))
    assert learned == [True, True, False]
    assert c.cut_to() == 3_000


def test_a_small_cut_is_one_where_the_estimate_was_exact() -> None:
    """Reports exactly as estimated, then 9,990 for a request 2.5% larger than one taken at 10,000:
    what it grew by counted at nothing, and the report 2.5% under its prediction, beyond the error
    measured (none): a cut, though it kept within half a percent of the last taken whole."""
    c, learned = observed((5_000, 5_000), (10_000, 10_000), (9_990, 10_250))
    assert learned == [True, True, False] and c.cut_to() == 10_000


def test_a_request_grown_a_little_and_counted_a_little_under_agrees() -> None:
    """Measured error of 1%, then a request 2.5% larger counted 1.5% under its prediction: within
    what the estimate is measured to miss by, no evidence of a cut."""
    c, learned = observed((5_050, 5_000), (9_900, 10_000), (10_110, 10_250))
    assert all(learned) and c.cut_to() is None


def test_an_image_counted_far_under_its_flat_estimate_is_no_cut() -> None:
    """Every image is estimated at a flat 1,600 tokens, and a provider may count one at 85 (OpenAI's low
    detail). Exact reports of 5,000 and 10,000, then a turn of 40 tokens of text and one image: estimated
    11,640, reported 10,125. Weighed whole, it grew by 1,640 and was counted at 125, under half: it was
    taken for a cut, and 10,125 learned as the window for good. The image's estimate weighs nothing
    (`flat`): what grew is 40 tokens, under the 2% a request must grow by. A real cut after it (3,000 more
    text, 7,000 reported, below the 10,125 before it) is still found, the window the largest size taken."""
    c, learned = observed((5_000, 5_000), (10_000, 10_000))
    assert learned == [True, True] and c.observe(10_125, 11_640, flat=1_600)
    assert c.cut_to() is None
    assert not c.observe(7_000, 14_640, flat=1_600)
    assert c.cut_to() == 10_125


def test_a_cut_under_two_percent_is_found_once_the_error_is_measured() -> None:
    """Four reports measured the estimate exact (the first sets the ratio), then a request 2.5% larger
    than one taken at 10,000 reported at 10,052: 1.9% under its 10,250, within a fixed 2% (10,045), but
    far beyond twice the error measured (none); what it grew by (250) was counted at 52, under half. A
    cut, and the window the largest size the server took. With only one error measured, 2% still holds."""
    c, learned = observed((2_000, 2_000), (4_000, 4_000), (6_000, 6_000), (8_000, 8_000), (10_000, 10_000),
                          (10_052, 10_250))
    assert learned == [True, True, True, True, True, False] and c.cut_to() == 10_052
    c, learned = observed((8_000, 8_000), (10_000, 10_000), (10_052, 10_250))
    assert all(learned) and c.cut_to() is None


def test_a_margin_from_the_error_is_no_cut_for_a_request_whose_growth_was_counted() -> None:
    """The same measured exact estimate, then a request 5% larger counted 1.5% under (10,342 of 10,500):
    no report agrees, but what it grew by was counted at 342 of 500, over half: no cut."""
    c, learned = observed((2_000, 2_000), (4_000, 4_000), (6_000, 6_000), (8_000, 8_000), (10_000, 10_000),
                          (10_342, 10_500))
    assert all(learned) and c.cut_to() is None
