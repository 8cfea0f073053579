"""A run of a conversation that already has a run in progress on the manager is refused in one line.

docs/library.md said such runs must not overlap, but nothing stopped them: two runs continuing one
`message_history` at once (`asyncio.gather`) shared that conversation's state (the store, the
layers' frozen decisions, the measured growth, the compactions) and each rewrote what the other
wrote, with no error. Runs of different conversations still run side by side."""

from __future__ import annotations

import asyncio

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import ContextManager
from compact_agent.context.lifecycle import busy

from .held_runs import turn_held


async def test_a_second_run_of_a_conversation_in_progress_is_refused_and_others_run_alongside() -> None:
    held = await turn_held()
    agent = held.agent
    with pytest.raises(UserError, match=r"already has a run in progress on this ContextManager: runs of one "
                                        r"conversation cannot overlap"):
        await agent.run("and this", message_history=held.history)
    other = asyncio.create_task(agent.run("a conversation of its own"))  # another conversation: allowed
    held.release.set()
    done, alone = await asyncio.gather(held.running, other)
    assert done.output == alone.output == "answer"

    # Once it returned, the conversation goes on.
    after = await agent.run("and this", message_history=done.all_messages())
    assert after.output == "answer"


async def test_a_manager_given_twice_to_one_agent_is_named_as_such() -> None:
    """`capabilities=[cm, cm]` was refused as a second run of the conversation overlapping the first,
    which sent the user looking for a concurrent run that was not there."""
    cm = ContextManager(window=64_000)
    agent = Agent(FunctionModel(lambda messages, info: ModelResponse(parts=[TextPart("answer")])),
                  capabilities=[cm, cm])
    with pytest.raises(UserError) as caught:
        await agent.run("hello")
    assert str(caught.value) == ("this ContextManager is given to the agent twice (capabilities=[cm, cm]): "
                                 "give it once")
    agent = Agent(FunctionModel(lambda messages, info: ModelResponse(parts=[TextPart("answer")])), capabilities=[cm])
    assert (await agent.run("hello")).output == "answer"  # nothing was left marked as running


async def test_two_managers_on_one_agent_are_refused_before_anything_is_sent() -> None:
    """Two different managers on one agent each compacted the same history, unaware of the other's
    compactions, store and notes, with no word of it."""
    sent: list[int] = []

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        sent.append(len(messages))
        return ModelResponse(parts=[TextPart("answer")])

    cm, cm2 = ContextManager(window=64_000), ContextManager(window=64_000)
    refused = "this agent is given 2 different ContextManagers: each would compact the same history on its own; give it one"
    with pytest.raises(UserError) as caught:
        await Agent(FunctionModel(answer), capabilities=[cm, cm2]).run("hello")
    assert str(caught.value) == refused
    with pytest.raises(UserError) as caught:  # one given for the run only is the same
        await Agent(FunctionModel(answer), capabilities=[cm]).run("hello", capabilities=[cm2])
    assert str(caught.value) == refused
    assert sent == []
    assert not busy(cm) and not busy(cm2)  # neither is left waiting for a run that never started
    assert (await Agent(FunctionModel(answer), capabilities=[cm2]).run("hello")).output == "answer"
