"""A provider that does not count the model's earlier thinking (Anthropic drops the thinking of earlier
turns from a request; a DeepSeek thinking model is sent its reasoning back and counts it no more)
reports a request hardly larger than the one before it when the new turn is short, while our
estimate grew by the last answer's thinking. Two such reports were taken for a server that cuts
prompts to its window without saying so (`Calibration.cut_to`): a 64K window was learned down to
10,640, the conversation's size, for good, and every later request compacted against it."""

from __future__ import annotations

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ThinkingPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from compact_agent.context import ContextManager, Event
from compact_agent.context.plumbing import tokens

THINKING = "Let me weigh the options here carefully. " * 60  # about 600 tokens a turn
OPENING = "Here is the design document we will discuss. " * 900  # about 10,000 tokens


def without_thinking(messages: list[ModelMessage]) -> list[ModelMessage]:
    return [m if not isinstance(m, ModelResponse) else
            ModelResponse(parts=[p for p in m.parts if not isinstance(p, ThinkingPart)] or [TextPart("")])
            for m in messages]


def counting_no_earlier_thinking(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    counted = 500 + tokens.estimate(without_thinking(messages))  # its own tokenizer and overhead aside
    return ModelResponse(parts=[ThinkingPart(THINKING), TextPart("Agreed.")],
                         usage=RequestUsage(input_tokens=counted, output_tokens=700))


def test_a_provider_not_counting_earlier_thinking_is_no_server_cutting_prompts() -> None:
    events: list[Event] = []
    cm = ContextManager(window=64_000, event_handler=events.append)
    agent = Agent(FunctionModel(counting_no_earlier_thinking), capabilities=[cm])
    history = agent.run_sync(OPENING).all_messages()
    for turn in range(8):
        history = agent.run_sync(f"ok {turn}", message_history=history).all_messages()
    assert cm.window_learned is None, cm.window_learned
    assert not [e for e in events if e.layer == "window"]
    assert cm.limits.window == 64_000


def test_growth_by_thinking_alone_is_no_growth_for_the_cut_check() -> None:
    from compact_agent.context.plumbing.tokens import Calibration

    c = Calibration()
    c.observe(40_000, 40_000, unsure=0)
    c.observe(40_150, 41_200, unsure=1_050)  # 150 new tokens counted, and 1,050 of thinking perhaps not
    assert c.cut_to() is None
    real = Calibration()
    real.observe(40_000, 40_000, unsure=1_050)
    real.observe(40_000, 41_200, unsure=1_050)  # grew by 1,200 besides the same thinking: a cut
    assert real.cut_to() == 40_000


def test_a_fold_that_swapped_thinking_for_its_digest_is_no_cut() -> None:
    """Between two requests a fold (collapse) took 330 tokens of thinking out and put a digest of 180
    in: a provider that counts the thinking saw the request about the same size (9,461 then 9,415),
    while without the thinking it grew by more than 2%. Taken for a server cutting prompts, the 16K
    window was learned down to 9,457 and kept for every later session of that model."""
    from compact_agent.context.plumbing.tokens import Calibration

    c = Calibration()
    c.observe(9_461, 9_348, unsure=1_960, earlier=1_960)
    c.observe(9_415, 9_300, unsure=1_630, earlier=1_630)  # the rest grew 7,388 -> 7,670 (3.8%)
    assert c.cut_to() is None
