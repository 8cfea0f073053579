"""`cm.window` after a first run that failed before its first model request.

A manager given no `window=` reads the model's at the first request, and `cm.window` is the window of
the conversation it serves, the first it sees. A first run that failed before any request (its model's
window unknown, an instructions function that raised) still took the manager for its conversation, so
the next run, a new conversation (pydantic-ai gives each run without a history a new id), ran in a copy
of the state and `cm.window` stayed None for good, though that run had worked within 32,000 tokens. A
run that made no request leaves the manager to the next conversation; one that did (the model itself
failed) keeps it, and its window is known already.
"""

from __future__ import annotations

import asyncio

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import ContextManager, ConversationBusy

WINDOW = 32_000


class Flaky:
    """Raises at its first request, answers every later one."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.calls += 1
        if self.calls == 1:
            raise RuntimeError("the provider is down")
        return ModelResponse(parts=[TextPart("done")])


def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart("done")])


async def test_the_window_of_the_run_after_one_refused_for_a_model_whose_window_is_unknown() -> None:
    cm = ContextManager()
    agent: Agent[None, str] = Agent(FunctionModel(answer), capabilities=[cm])
    with pytest.raises(UserError, match="needs the context window of model"):
        await agent.run("Hello.")
    assert cm.window is None

    result = await agent.run("Hello.", model=FunctionModel(answer, profile={"context_window": WINDOW}))
    assert result.output == "done"
    assert cm.window == WINDOW and cm.limits.window == WINDOW
    assert cm.conversation(result.conversation_id) is cm  # the manager serves the run that worked


async def test_the_window_of_the_run_after_one_whose_instructions_raised() -> None:
    cm = ContextManager()
    agent: Agent[None, str] = Agent(FunctionModel(answer, profile={"context_window": WINDOW}), capabilities=[cm])
    asked: list[int] = []

    @agent.instructions
    def instructions() -> str:
        asked.append(1)
        if len(asked) == 1:
            raise RuntimeError("the user's record could not be read")
        return "Answer briefly."

    with pytest.raises(RuntimeError, match="could not be read"):
        await agent.run("Hello.")
    assert cm.window is None

    assert (await agent.run("Hello.")).output == "done"
    assert cm.window == WINDOW


async def test_the_window_after_a_first_run_the_model_failed() -> None:
    """Here the first run made its request: the window was read then, and stays."""
    flaky = Flaky()
    cm = ContextManager()
    agent: Agent[None, str] = Agent(FunctionModel(flaky, profile={"context_window": WINDOW}), capabilities=[cm])
    with pytest.raises(RuntimeError, match="the provider is down"):
        await agent.run("Hello.")
    assert cm.window == WINDOW

    assert (await agent.run("Hello.")).output == "done"
    assert cm.window == WINDOW and flaky.calls == 2


async def test_the_same_conversation_tried_again_is_served_by_the_manager() -> None:
    cm = ContextManager()
    agent: Agent[None, str] = Agent(FunctionModel(answer), capabilities=[cm])
    with pytest.raises(UserError):
        await agent.run("Hello.", conversation_id="c1")
    model = FunctionModel(answer, profile={"context_window": WINDOW})
    await agent.run("Hello.", conversation_id="c1", model=model)
    assert cm.conversation("c1") is cm and cm.window == WINDOW


async def test_a_saved_state_given_for_the_failed_conversation_stays_with_it() -> None:
    """The manager took it for that conversation at its first run: another must not run in it."""
    saved = ContextManager(window=WINDOW).layer_state()
    saved["snip"] = {"snipped": {"call-1": 1}}
    cm = ContextManager()
    cm.load_layer_state(saved, conversation_id="c1")
    agent: Agent[None, str] = Agent(FunctionModel(answer), capabilities=[cm])
    with pytest.raises(UserError):
        await agent.run("Hello.", conversation_id="c1")

    other = await agent.run("Hello.", conversation_id="c2",
                            model=FunctionModel(answer, profile={"context_window": WINDOW}))
    assert cm.conversation("c1") is cm and cm.conversation(other.conversation_id) is not cm


async def test_a_run_refused_as_busy_leaves_the_conversation_to_the_run_in_progress() -> None:
    """The second submit of one turn fails before its request too: the first still holds the manager."""
    cm = ContextManager()
    agent: Agent[None, str] = Agent(FunctionModel(answer, profile={"context_window": WINDOW}), capabilities=[cm])
    entered, go_on = asyncio.Event(), asyncio.Event()

    @agent.instructions
    async def instructions() -> str:
        entered.set()
        await go_on.wait()
        return "Answer briefly."

    first = asyncio.create_task(agent.run("Hello.", conversation_id="c1"))
    await entered.wait()
    with pytest.raises(ConversationBusy):
        await agent.run("Hello.", conversation_id="c1")
    go_on.set()
    await first
    assert cm.conversation("c1") is cm and cm.window == WINDOW
