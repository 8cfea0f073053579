"""A history processor that trims the history in the run is no other history.

pydantic-ai's `ProcessHistory` capability (a history processor) edits the run's history before each
request: the documented "keep the first request and the newest steps" leaves out one more old step
at every request. The store held the history the request before had, so each request found the store
holding something the history no longer began with: it archived the whole store, rewrote it, and said
`store` / `replaced` (another writer) at almost every request: 27 times in a 31-request run, and the
in-memory store's eight archives then held none of the compactions'. Now a history that leaves out
some of what the store holds and goes on from its newest message, in a run that began from what the
store holds, only appends what is new; the store keeps the whole conversation. A history that does
not go on from it (a regenerated answer) is still a replacement.
"""

from __future__ import annotations

from pydantic_ai import Agent
from pydantic_ai.capabilities.process_history import ProcessHistory
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import ContextManager, Event, InMemoryStore
from compact_agent.context.plumbing.stores import said_alike, went_on_from

KEEP = 5


def keep_recent(messages: list[ModelMessage]) -> list[ModelMessage]:
    """pydantic-ai's documented pattern: the first message and the newest ones, never from a result."""
    if len(messages) <= KEEP + 1:
        return messages
    tail = messages[-KEEP:]
    while tail and isinstance(tail[0], ModelResponse):
        tail = tail[1:]
    return [messages[0], *tail]


def _agent(cm: ContextManager, steps: int, processor: bool = True) -> Agent[None, str]:
    done = {"n": 0}

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if done["n"] >= steps:  # the run's last answer; the next run starts again
            done["n"] = 0
            return ModelResponse(parts=[TextPart("done")])
        done["n"] += 1
        return ModelResponse(parts=[ToolCallPart("read", {"page": done["n"]})])

    agent = Agent(FunctionModel(answer), capabilities=[ProcessHistory(keep_recent), cm] if processor else [cm])

    @agent.tool_plain
    def read(page: int) -> str:
        return f"page {page}"

    return agent


async def test_a_trimming_processor_appends_only_what_is_new() -> None:
    events: list[Event] = []
    store = InMemoryStore()
    cm = ContextManager(window=64_000, store=store, event_handler=events.append)
    agent = _agent(cm, 12)
    first = await agent.run("read the pages", conversation_id="c")
    assert len(first.all_messages()) < 10  # the processor trimmed the run's history
    second = await agent.run("read them again", message_history=first.all_messages(), conversation_id="c")
    assert [e for e in events if e.layer == "store"] == []
    assert store.archives == [] and store.boundaries == []
    # The store holds the whole conversation: every request the model answered, each answer once.
    assert sum(isinstance(m, ModelResponse) for m in store.messages) == 2 * 13
    assert all(said_alike(a, b) for a, b in zip(store.messages[-3:], second.all_messages()[-3:], strict=True))


async def test_a_regenerated_answer_is_still_a_replacement() -> None:
    events: list[Event] = []
    cm = ContextManager(window=64_000, event_handler=events.append)
    agent = _agent(cm, 1, processor=True)
    history = (await agent.run("one")).all_messages()
    history = (await agent.run("two", message_history=history)).all_messages()
    assert [e for e in events if e.layer == "store"] == []
    await agent.run("two again", message_history=history[:4])
    (replaced,) = [e for e in events if e.layer == "store"]
    assert replaced.action == "replaced" and replaced.trigger == "history_changed"


def test_what_goes_on_from_the_held_history() -> None:
    held: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart(f"m{i}")]) for i in range(5)]
    new = ModelRequest(parts=[UserPromptPart("new")])
    assert went_on_from(held, [held[0], held[3], held[4], new]) == 3
    assert went_on_from(held, [held[0], held[4]]) == 2
    assert went_on_from(held, [held[0], held[3]]) is None  # its newest is left out: a regenerated turn
    assert went_on_from(held, [held[0], new, held[4]]) is None  # something else in the middle
    assert went_on_from(held, [held[3], held[0], held[4]]) is None  # out of order
    assert went_on_from([], [new]) is None
