"""A run that finds the store holding something else than its `message_history` says so in an event.

Two worker processes serving one conversation at once (a user's double submit) both returned success:
the second's manager found the store holding more than the history it was given (the first's turn),
archived it and rewrote the store with its own history, as it does for a regenerated answer, and said
nothing; then both appended, and the store mixed the two turns. The rewrite is still made (the run's
history is the truth), but a `store` / `replaced` event now says it, with how much the store held, how
much of it the history began with, and the archive, so a service can notice. Two managers in one
process on one store stand in for the two processes."""

from __future__ import annotations

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import ContextManager, Event, InMemoryStore


def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    prompt = next(p.content for p in messages[-1].parts if isinstance(p, UserPromptPart))
    return ModelResponse(parts=[TextPart(f"answer to {prompt}")])


async def test_a_second_worker_on_a_stale_history_is_told_the_store_was_replaced() -> None:
    store = InMemoryStore()
    first = Agent(FunctionModel(answer), capabilities=[ContextManager(window=64_000, store=store)])
    turn1 = (await first.run("turn 1", conversation_id="c")).all_messages()

    # Two workers load the conversation at once, each with its own manager on the same store.
    seen_a: list[Event] = []
    seen_b: list[Event] = []
    worker_a = Agent(FunctionModel(answer), capabilities=[ContextManager(window=64_000, store=store,
                                                                          event_handler=seen_a.append)])
    worker_b = Agent(FunctionModel(answer), capabilities=[ContextManager(window=64_000, store=store,
                                                                          event_handler=seen_b.append)])
    loaded_a, loaded_b = store.load_messages(), store.load_messages()
    done_a = await worker_a.run("turn 2 from A", message_history=loaded_a, conversation_id="c")
    assert store.messages == done_a.all_messages() and len(store.messages) == 4
    assert [e for e in seen_a if e.layer == "store"] == []  # appending what is new is no replacement

    done_b = await worker_b.run("turn 2 from B", message_history=loaded_b, conversation_id="c")
    (replaced,) = [e for e in seen_b if e.layer == "store"]
    assert (replaced.action, replaced.trigger, replaced.conversation_id) == ("replaced", "history_changed", "c")
    assert replaced.detail == {"held": 4, "same": 2, "messages": 3, "archive": ""}
    assert store.archives == [done_a.all_messages()]  # A's turn is kept, in the archive
    assert store.messages == done_b.all_messages() and len(turn1) == 2


async def test_a_regenerated_answer_is_said_too() -> None:
    """A shorter history on purpose (regenerate) is the same rewrite: said alike, with its trigger."""
    seen: list[Event] = []
    cm = ContextManager(window=64_000, event_handler=seen.append)
    agent = Agent(FunctionModel(answer), capabilities=[cm])
    history = (await agent.run("one")).all_messages()
    history = (await agent.run("two", message_history=history)).all_messages()
    assert [e for e in seen if e.layer == "store"] == []
    await agent.run("two again", message_history=history[:2])
    (replaced,) = [e for e in seen if e.layer == "store"]
    assert replaced.action == "replaced" and replaced.detail["held"] == 4 and replaced.detail["same"] == 2
