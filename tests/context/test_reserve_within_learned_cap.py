"""The output reserve is never more than the run's model can write, once its cap is known.

The reserve keeps room in the window for the model's answer (`Limits.output_reserve`, at most
`max_output`). A refusal of a summary or notes request names the model's cap, and `max_output`
becomes it (output_limit.py), but the reserve was left as the old `max_output` had set it: the
threshold stayed where a model writing 8,192 tokens needs it, and compactions came earlier than the
model could ever need (with `adaptive_output_reserve` off for good; with it on, until an answer
came). So did a cap saved with the layers' state, after a restart. A `summary_model` of its own
is another matter: the reserve holds the run's model's answers, and that model's cap leaves it as
it is (its own requests ask for no more than its cap: output_limit.py).
"""

from __future__ import annotations

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import CompactionSettings, ContextManager
from compact_agent.context.wiring import Internals

CAP = 4_096
WINDOW = 32_000  # its reserve: min(8,192, 20,000, 8,000) = 8,000


def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart("done")])


def manager(adaptive: bool) -> ContextManager:
    return ContextManager.wired(Internals(), window=WINDOW,
                                settings=CompactionSettings(adaptive_output_reserve=adaptive))


@pytest.mark.parametrize("adaptive", [False, True])
def test_a_cap_learned_for_the_run_model_bounds_the_reserve_at_once(adaptive: bool) -> None:
    cm = manager(adaptive)
    assert cm.limits.output_reserve == 8_000
    model = FunctionModel(answer, model_name="small")
    cm.run_model = model
    cm.learn_output_limit(model, CAP)
    assert cm.max_output == CAP
    assert cm.limits.output_reserve == CAP
    assert cm.limits.threshold == WINDOW - CAP - cm.limits.buffer
    assert cm.compactor is not None and cm.compactor.limits == cm.limits


def test_a_summary_models_cap_leaves_the_reserve_of_the_run_models_answers() -> None:
    cm = manager(adaptive=False)
    cm.run_model = FunctionModel(answer, model_name="main")
    cm.learn_output_limit(FunctionModel(answer, model_name="summaries"), CAP)
    assert cm.max_output == 8_192 and cm.limits.output_reserve == 8_000


async def test_a_cap_saved_before_a_restart_bounds_the_reserve_from_the_first_request() -> None:
    model = FunctionModel(answer, model_name="small")
    cm = manager(adaptive=False)
    cm.load_layer_state({"learned": {"output_caps": {f"{model.system}:{model.model_name}": CAP}}})
    reserves: list[int] = []

    def seen(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        reserves.append(cm.limits.output_reserve)
        return answer(messages, info)

    model.function = seen
    await Agent(model, capabilities=[cm]).run("hello")
    assert reserves == [CAP] and cm.max_output == CAP
