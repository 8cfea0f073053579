"""A tiny request (whose framing, not its text, is most of what the provider counts) sets no ratio:
a stand-in reporting ~50 tokens for any request no longer pins every size at 4x. A ratio bounded at
4x by a real request stays (a tokenizer that dense, with a server reporting only what its cache did
not hold, looks the same as a stand-in's constant report), as does the defence against reports far
below the estimate that follow a ratio the reports did support."""

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


def test_a_ratio_bounded_at_4x_stays_when_reports_far_below_it_follow() -> None:
    """A tokenizer counting more than 4x characters/4 (CJK text, an old local model's) with a server
    that reports only the prompt tokens its cache did not hold: the reports after the first fall far
    below. Sent back to characters/4, a 105,000-token request was measured as 21,000."""
    c = Calibration()
    assert c.observe(2_000, 300)  # 6.7x: bounded at 4x
    assert c.ratio == MAX_RATIO
    for est in (520, 1_035, 1_600, 2_200):  # only what was not read from the cache
        assert not c.observe(60, est)
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
