"""A resumed conversation measures in the provider's tokens from its first request: the layers'
saved state keeps the latest usage report, and a new ContextManager learns the tokenizer's ratio
from it as the old one had. It was kept only to find a server that cuts prompts, so a resumed
session measured in characters/4 until its first answer (`-c -p /compact` began from 2,995 where
/status, from the provider's count, said 3,113)."""

from __future__ import annotations

import math

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from compact_agent.context import ContextManager
from compact_agent.context.plumbing import tokens


def dense(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """A provider whose tokenizer counts a third more than characters/4."""
    chars = sum(len(str(getattr(p, "content", ""))) for m in messages for p in m.parts)
    return ModelResponse(parts=[TextPart("noted")], usage=RequestUsage(input_tokens=math.ceil(chars / 3), output_tokens=2))


async def test_a_resumed_manager_measures_with_the_ratio_of_the_report_it_kept() -> None:
    first = ContextManager(window=64_000)
    result = await Agent(FunctionModel(dense), capabilities=[first]).run("remember: " + "the parser keeps spans " * 400)
    reported, estimated = first.calibration.last_report() or (0, 0)
    assert reported > 1.2 * estimated  # the case: the provider counts more than characters/4

    again = ContextManager(window=64_000)
    again.load_layer_state(first.layer_state())

    assert again.calibration.ratio == first.calibration.ratio == reported / estimated
    history = result.all_messages()
    assert again.measure(history) == first.measure(history)
    assert again.measure(history) > 1.2 * tokens.estimate(history)
