"""A summary request of a `NativeOutput` or `PromptedOutput` agent is sized as what it sends.

Such a request leaves the output schema out (text_only.unable_to_act: the provider would hold the
summary to it), but it was measured with the schema the agent's own requests carry
(`output_defs`): a 40-field output model (some 2,400 tokens) took that much from the summary's
`max_tokens`, and a request near the window could be refused as not fitting for a schema it does
not send. The same conversation held by a `str` agent, whose requests carry no schema, is the
measure: the summary request is the same, and so is its room.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import Field, create_model
from pydantic_ai import Agent, NativeOutput, PromptedOutput
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from compact_agent.context import CompactionSettings, ContextManager
from compact_agent.context.testing import library_request, reply_to_library_request

Counts = create_model("Counts", **{  # type: ignore[call-overload]
    f"field_{i}": (int, Field(description=f"the count of thing number {i}, " + "with its detail " * 7))
    for i in range(40)})
ANSWER = "{" + ", ".join(f'"field_{i}": 1' for i in range(40)) + "}"


def _summary_request(output_type: Any) -> tuple[int, str, bool, int]:
    """The `max_tokens` of the summary request `compact_now` makes of twelve turns, what it asks for
    (its output mode, whether it sends a schema), and the manager's fixed part of a request."""
    asked: list[tuple[int, str, bool]] = []

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if library_request(messages) is not None:
            params = info.model_request_parameters
            asked.append(((info.model_settings or {}).get("max_tokens", 0), params.output_mode,
                          params.output_object is not None))
            reply = reply_to_library_request(messages, "The counts so far.")
            assert reply is not None
            return reply
        # no input tokens reported: both agents' estimates stay uncalibrated, alike
        return ModelResponse(parts=[TextPart(ANSWER)], usage=RequestUsage(output_tokens=1))

    cm = ContextManager(window=16_000, settings=CompactionSettings(compaction_records=False))
    agent = Agent(FunctionModel(answer), capabilities=[cm], output_type=output_type)
    history: list[ModelMessage] = []
    for i in range(12):
        history = agent.run_sync(f"count {i} " + "words " * 300, message_history=history).all_messages()
    assert not cm.compactions and not asked
    asyncio.run(cm.compact_now(history))
    assert len(asked) == 1
    return (*asked[0], cm.overhead)


@pytest.mark.parametrize("wrap", [NativeOutput, PromptedOutput], ids=["native", "prompted"])
def test_the_summary_of_a_schema_agent_has_the_room_a_text_agents_has(wrap: Any) -> None:
    plain_cap, plain_mode, plain_schema, plain_fixed = _summary_request(str)
    cap, mode, schema, fixed = _summary_request(wrap(Counts))
    assert (mode, schema) == (plain_mode, plain_schema) == ("text", False)  # the same request is sent
    assert fixed > plain_fixed + 2_000  # the agent's own requests do carry the schema
    assert plain_cap < 8_192  # the window, not the model's output, bounds it
    assert cap == plain_cap
