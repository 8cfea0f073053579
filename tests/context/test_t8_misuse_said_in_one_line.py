"""Three mistakes a pydantic-ai developer makes, each said in the one line that names its fix:
- `capabilities=[ContextManager]`, the class: pydantic-ai calls a class listed there with the run's
  context, which arrived as `window` ("window must be a whole number … not RunContext");
- `ContextManager()` with a test's stand-in model (`agent.override(model=TestModel())`), whose window
  pydantic-ai does not know: the line named only `window=`, which would fix the window of the
  agent's real model too; the model's own `profile={"context_window": N}` is named beside it;
- a system prompt larger than the window: a stray "compaction failed: compaction would not shrink
  the context" warning came before the clear `WindowTooSmallError`."""

from __future__ import annotations

import logging

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel

from compact_agent.context import ContextManager, WindowTooSmallError


def ok(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart("ok")])


def test_the_class_listed_in_capabilities_is_named_as_one() -> None:
    agent = Agent(FunctionModel(ok), capabilities=[ContextManager])  # type: ignore[list-item]
    with pytest.raises(TypeError) as caught:
        agent.run_sync("hi")
    assert str(caught.value) == ("ContextManager was given as a class (capabilities=[ContextManager]): pass an "
                                 "instance, capabilities=[ContextManager(...)]")


@pytest.mark.parametrize("model", [TestModel(), FunctionModel(ok)], ids=["TestModel", "FunctionModel"])
def test_a_stand_in_model_without_a_window_is_told_of_its_profile(model: TestModel | FunctionModel) -> None:
    agent = Agent("openai:gpt-4o", capabilities=[ContextManager()], defer_model_check=True)
    with agent.override(model=model), pytest.raises(UserError) as caught:
        agent.run_sync("hi")
    said = str(caught.value)
    assert "\n" not in said
    assert said.endswith(f"ContextManager(window=...) for every model, or {type(model).__name__}(..., "
                         "profile={'context_window': N}) for this one (a model a test gives with agent.override too)")


def test_the_profile_the_line_names_is_taken() -> None:
    agent = Agent("openai:gpt-4o", capabilities=[cm := ContextManager()], defer_model_check=True)
    with agent.override(model=FunctionModel(ok, profile={"context_window": 32_000})):
        assert agent.run_sync("hi").output == "ok"
    assert cm.window == 32_000


def test_a_system_prompt_over_the_window_is_said_once(caplog: pytest.LogCaptureFixture) -> None:
    agent = Agent(FunctionModel(ok), system_prompt="You are a careful agent. " * 2000,
                  capabilities=[ContextManager(window=4_000)])
    with caplog.at_level(logging.WARNING), pytest.raises(WindowTooSmallError) as caught:
        agent.run_sync("hi")
    assert "pass a larger window= to ContextManager, or give the agent a shorter system prompt" in str(caught.value)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
