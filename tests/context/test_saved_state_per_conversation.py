"""A saved state is put back into the conversation it was saved for, on a manager that serves many.

On a new manager `cm.conversation("B")` is None until B's first run, and `cm.load_layer_state(state)`
went to whatever conversation ran first: a service restarting with B's state (its circuit breaker open
after three failed compactions) opened the breaker of another user's conversation. With
`conversation_id=` the state is held until that conversation's first run here (or applied at once to a
conversation the manager serves); without it, a manager already serving several refuses the call."""

from __future__ import annotations

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import ContextManager


def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart("answer")])


def states(cm: ContextManager, *ids: str) -> list[ContextManager]:
    found = [cm.conversation(cid) for cid in ids]
    assert all(s is not None for s in found)
    return [s for s in found if s is not None]


async def test_a_state_given_for_a_conversation_waits_for_that_conversation() -> None:
    cm = ContextManager(window=64_000)
    agent = Agent(FunctionModel(answer), capabilities=[cm])
    # B's breaker paused until its cool-down ends (breaker_retry.py), far off.
    cm.load_layer_state({"learned": {"failures": 3, "breaker_retry_at": "2999-01-01T00:00:00+00:00"}},
                        conversation_id="B")
    cm.load_layer_state({"learned": {"failures": 1}}, conversation_id="C")
    assert cm.conversation("B") is None  # not served yet: held
    await agent.run("hello", conversation_id="A")  # runs first: the manager's own state
    await agent.run("hello", conversation_id="B")
    (a, b) = states(cm, "A", "B")
    assert (a.failures, a.breaker_open) == (0, False)
    assert (b.failures, b.breaker_open) == (3, True)
    assert cm.conversation("C") is None

    # A conversation the manager serves takes it at once.
    cm.load_layer_state({"learned": {"failures": 2}}, conversation_id="A")
    assert a.failures == 2 and b.failures == 3


async def test_the_first_conversation_to_run_takes_its_own_state_only() -> None:
    cm = ContextManager(window=64_000)
    agent = Agent(FunctionModel(answer), capabilities=[cm])
    cm.load_layer_state({"learned": {"failures": 3}}, conversation_id="B")
    await agent.run("hello", conversation_id="B")  # B is the first: the manager's own state is B's
    assert cm.conversation("B") is cm and cm.failures == 3


async def test_no_conversation_named_on_a_manager_of_several_is_refused() -> None:
    cm = ContextManager(window=64_000)
    agent = Agent(FunctionModel(answer), capabilities=[cm])
    await agent.run("hello", conversation_id="A")
    cm.load_layer_state({"learned": {"failures": 1}})  # one conversation: its own, as before
    assert cm.failures == 1
    await agent.run("hello", conversation_id="B")
    with pytest.raises(UserError) as caught:
        cm.load_layer_state({"learned": {"failures": 3}})
    assert str(caught.value) == ("this ContextManager serves 2 conversations: say whose saved state this is, "
                                 "load_layer_state(state, conversation_id=...)")
    assert [s.failures for s in states(cm, "A", "B")] == [1, 0]
