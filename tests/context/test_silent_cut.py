"""A server that cuts prompts to its window without saying so (Ollama past its context length)
reports the cut size as the input: two reports in a row of one size, for requests that grew, are
that window, and the first of them taught the calibration nothing about the tokenizer."""

from __future__ import annotations

from compact_agent.context.plumbing.tokens import Calibration


def test_two_reports_of_one_size_for_growing_requests_are_the_servers_window() -> None:
    c = Calibration()
    assert c.observe(1_000, 1_000) and c.cut_to() is None
    assert c.observe(4_096, 6_000)  # 0.68: could be a tokenizer, learned from
    assert c.ratio != 1.0
    assert not c.observe(4_096, 7_500)  # the same size again, for a larger request: a cut
    assert c.cut_to() == 4_096
    assert c.ratio == 1.0 and c.samples == 1  # the first cut report is unlearned


def test_a_report_within_half_a_percent_counts_as_the_same_size() -> None:
    c = Calibration()
    c.observe(4_090, 6_000)
    assert not c.observe(4_096, 7_000) and c.cut_to() == 4_096


def test_the_same_request_sent_again_is_not_a_cut() -> None:
    c = Calibration()
    assert c.observe(5_000, 5_200)
    assert c.observe(5_000, 5_200)  # a retry: same request, same count
    assert c.observe(5_000, 5_250)  # under 2% larger: a rounding of the estimate
    assert c.cut_to() is None


def test_reports_that_grow_with_the_requests_are_not_a_cut() -> None:
    c = Calibration()
    for est in range(5_000, 20_000, 1_500):
        assert c.observe(round(est * 0.9), est)
    assert c.cut_to() is None and 0.89 < c.ratio < 0.91


def test_a_constant_report_too_small_for_any_window_is_not_a_cut() -> None:
    """A model that reports "50" whatever it was sent counts nothing: its reports are ignored, and
    no window of 50 is learned from them."""
    c = Calibration()
    for est in (4_000, 6_000, 8_000):
        assert not c.observe(50, est)
    assert c.cut_to() is None


def test_the_event_of_a_cut_says_it_was_a_cut() -> None:
    """The second report of one size, a little below the first (the cut is the larger), was said as
    'the reported input is implausibly far below the estimate' though it was at the estimate."""
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.usage import RequestUsage

    from compact_agent.context import ContextManager, Event

    sizes = iter([1_000, 4_096, 4_090, 4_090, 4_090])

    def cutting(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart("ok " * 300)], usage=RequestUsage(input_tokens=next(sizes), output_tokens=300))

    class OllamaLike(FunctionModel):  # a server's model: FunctionModel's own counts are never a cut
        @property
        def system(self) -> str:
            return "ollama"

    events: list[Event] = []
    cm = ContextManager(window=64_000, event_handler=events.append)
    agent = Agent(OllamaLike(cutting), capabilities=[cm])
    history = agent.run_sync("start " * 700).all_messages()
    for _ in range(2):
        history = agent.run_sync("more " * 1_500, message_history=history).all_messages()
    rejected = [e.detail["reason"] for e in events if e.layer == "calibration"]
    assert cm.calibration.cut_to() == 4_096
    assert rejected and rejected[0] == "the server cut the prompt to its window", rejected
