"""`compact_now([])` says there is nothing to compact, whatever the manager knows of a model.

On a manager that had seen no run and was given no summary model, it said "no model to write the
summary: pass summary_model=... to ContextManager, or model=... to compact_now()": the caller went
looking for a model, and given one, was then told "nothing to compact". The empty history is now
refused first, before anything else is looked at or the store touched.
"""

from __future__ import annotations

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import CompactionError, ContextManager


def summarize(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    raise AssertionError("no summary request for an empty history")


async def test_an_empty_history_on_a_new_manager_is_nothing_to_compact() -> None:
    cm = ContextManager(window=8_000)
    with pytest.raises(CompactionError) as raised:
        await cm.compact_now([])
    assert str(raised.value) == "nothing to compact"


async def test_an_empty_history_with_a_model_is_nothing_to_compact_too() -> None:
    for cm, model in ((ContextManager(window=8_000), FunctionModel(summarize)),
                      (ContextManager(window=8_000, summary_model=FunctionModel(summarize)), None)):
        with pytest.raises(CompactionError) as raised:
            await cm.compact_now([], model=model)
        assert str(raised.value) == "nothing to compact"
