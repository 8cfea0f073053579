"""A `ContextManager()` given no window uses each model's own: shared by two agents on models with
different windows, each conversation reads its model's window at its first request. A conversation
after the first used to inherit the first one's model's window: an 8K model's conversation after a
1M one's was measured against 1M (every request over the 8K was left to the provider to refuse), and
a 1M model's after an 8K one's compacted at 8K."""

from __future__ import annotations

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import ContextManager


def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart("ok")])


def test_each_conversation_of_a_shared_manager_has_its_own_models_window() -> None:
    cm = ContextManager()
    large = Agent(FunctionModel(answer, profile={"context_window": 1_000_000}), capabilities=[cm])
    small = Agent(FunctionModel(answer, profile={"context_window": 8_192}), capabilities=[cm])
    first = large.run_sync("hi")
    second = small.run_sync("hi")
    third = large.run_sync("hi")
    windows = {}
    for result in (first, second, third):
        conversation = result.all_messages()[-1].conversation_id
        assert conversation is not None
        state = cm.conversation(conversation)
        assert state is not None
        windows[conversation] = state.window
    assert list(windows.values()) == [1_000_000, 8_192, 1_000_000]


def test_a_window_given_is_every_conversations() -> None:
    cm = ContextManager(window=32_000)
    small = Agent(FunctionModel(answer, profile={"context_window": 8_192}), capabilities=[cm])
    results = [small.run_sync("hi"), small.run_sync("hi")]
    ids = [r.all_messages()[-1].conversation_id for r in results]
    assert [s.window for i in ids if i and (s := cm.conversation(i))] == [32_000, 32_000]
