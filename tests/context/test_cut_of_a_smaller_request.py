"""A server that cuts prompts reports the size it kept, which the request it cut was larger than.
Two equal reports for requests far smaller than that size (a stand-in model reporting a constant
3,000 input tokens for requests of a few hundred) were taken for a server cutting prompts to 3,000:
a 32K window was learned down to 3K, and every later request compacted against it."""

from __future__ import annotations

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage, UsageLimits

from compact_agent.context import ContextManager, Event
from compact_agent.context.plumbing.tokens import Calibration


def test_equal_reports_far_above_the_requests_are_no_cut() -> None:
    c = Calibration()
    c.observe(3_000, 271)
    c.observe(3_000, 508)  # 5.9x the estimate: no tokenizer counts so, and no cut keeps more than it was sent
    assert c.cut_to() is None


def test_a_cut_at_a_denser_tokenizers_count_is_still_found() -> None:
    c = Calibration()
    c.observe(4_096, 3_000)  # 1.4x: a dense tokenizer
    c.observe(4_096, 3_600)
    assert c.cut_to() == 4_096


def test_a_stand_in_reporting_a_constant_input_leaves_the_window_as_given() -> None:
    steps: list[int] = []

    def stand_in(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        steps.append(1)
        usage = RequestUsage(input_tokens=3_000, output_tokens=10)
        if len(steps) < 15:
            return ModelResponse(parts=[ToolCallPart("page", {"n": len(steps)})], usage=usage)
        return ModelResponse(parts=[TextPart("done")], usage=usage)

    events: list[Event] = []
    cm = ContextManager(window=32_000, event_handler=events.append)
    agent = Agent(FunctionModel(stand_in), capabilities=[cm])

    @agent.tool_plain
    def page(n: int) -> str:
        """A page."""
        return "word " * 200

    assert agent.run_sync("read", usage_limits=UsageLimits(request_limit=50)).output == "done"
    assert cm.window_learned is None and not [e for e in events if e.layer == "window"]
    assert not cm.compactions
