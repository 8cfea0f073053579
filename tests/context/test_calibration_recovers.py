"""A ratio no tokenizer makes does not stay: a tiny request (whose framing, not its text, is most of
what the provider counts) sets none, and one bounded at 4x goes when the reports after it keep
refusing it. The defence against one-off bad reports and against reports far below the estimate
that follow a ratio the reports did support stays as it was."""

from __future__ import annotations

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import CompactionEvent, ContextManager, Event, Prices
from compact_agent.context.plumbing.tokens import MAX_RATIO, Calibration


def test_a_tiny_request_sets_no_ratio_and_measures_the_framing() -> None:
    c = Calibration()
    assert c.observe(51, 5)  # pydantic-ai's FunctionModel reports ~50 for any first request
    assert c.ratio == 1.0 and c.samples == 0  # was 4.0 (51 / 5, bounded)
    # Then a request of 1,000 estimated tokens reported as 1,245: the framing (45) and a ratio of 1.2.
    assert c.observe(1_245, 1_000)
    assert round(c.ratio, 3) == 1.2 and round(c.fixed) == 45


def test_a_ratio_bounded_at_4x_goes_when_two_reports_in_a_row_refuse_it() -> None:
    c = Calibration()
    assert c.observe(2_000, 300)  # 6.7x: bounded at 4x
    assert c.ratio == MAX_RATIO
    assert not c.observe(52, 520)  # one report far below: refused, the ratio stays (a one-off)
    assert c.ratio == MAX_RATIO
    assert not c.observe(53, 1_035)  # the second in a row: nor was 4x a tokenizer's
    assert c.ratio == 1.0 and c.samples == 0
    # A plausible report after it is learned as a first one.
    assert c.observe(900, 1_000) and c.ratio == 0.9


def test_one_bad_report_between_two_does_not_undo_a_bounded_ratio() -> None:
    c = Calibration()
    c.observe(2_000, 300)
    assert not c.observe(52, 520)
    assert c.observe(4_800, 1_200)  # 4x again: the refusals are not in a row
    assert not c.observe(60, 1_300)
    assert c.ratio == MAX_RATIO


def test_reports_far_below_a_ratio_the_reports_supported_are_still_refused() -> None:
    c = Calibration()
    assert c.observe(1_000, 1_000) and c.observe(2_100, 2_000)
    before = c.ratio
    for est in (3_000, 4_000, 5_000):  # only what was not read from the cache, say: never believed
        assert not c.observe(300, est)
    assert c.ratio == before


def test_a_function_model_without_usage_compacts_where_the_history_is() -> None:
    """FunctionModel's own usage (no `usage=`): ~50 input tokens for the first request, a token more
    for each later one. The first pinned the ratio at 4x and every later one was refused, so a
    32,000-token window compacted at 24,740 "tokens" where ~6,200 were."""
    text = " ".join(["lorem ipsum dolor sit amet"] * 75)  # ~500 tokens

    def llm(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart(text)])

    events: list[Event] = []
    cm = ContextManager(window=32_000, prices=Prices(known=False), event_handler=events.append)
    agent = Agent(FunctionModel(llm), capabilities=[cm])
    history: list[ModelMessage] = []
    for _ in range(20):  # ~10,500 tokens of history: under the threshold
        history = agent.run_sync("q", message_history=history).all_messages()
    assert not [e for e in events if isinstance(e, CompactionEvent)]
    assert cm.calibration.ratio == 1.0
