"""A conversation let go past `max_conversations` says so (a `ConversationEvent`, "dropped", with the
archives that went with it), and one that compacted goes after those that did not.

With the default `InMemoryStore` a conversation's archives are the only copy of its transcript before
each compaction: dropped, they went with no word, and the least recently used went first whatever it
held, a compacted conversation before one that had only said hello.
"""

from __future__ import annotations

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from compact_agent.context import ContextManager, Event, InMemoryStore
from compact_agent.context.plumbing.events import ConversationEvent
from compact_agent.context.testing import reply_to_library_request


def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    usage = RequestUsage(input_tokens=sum(len(str(getattr(p, "content", ""))) for m in messages for p in m.parts) // 4
                         + 100, output_tokens=5)
    return reply_to_library_request(messages, usage=usage) or ModelResponse(parts=[TextPart("ok " * 100)], usage=usage)


async def compacted(agent: Agent[None, str], conversation: str) -> None:
    history: list[ModelMessage] = []
    for _ in range(8):
        history = (await agent.run("long message " * 80, message_history=history,
                                   conversation_id=conversation)).all_messages()


def drops(events: list[Event]) -> list[tuple[str | None, int, int]]:
    return [(e.conversation_id, e.detail["compactions"], e.archives) for e in events
            if isinstance(e, ConversationEvent) and e.action == "dropped"]


async def test_a_conversation_dropped_says_what_went_with_it() -> None:
    events: list[Event] = []
    cm = ContextManager(window=3_000, max_conversations=2, event_handler=events.append)
    agent = Agent(FunctionModel(model), capabilities=[cm])
    await agent.run("the manager's own")
    await compacted(agent, "B")
    state = cm.conversation("B")
    assert state is not None and isinstance(state.store, InMemoryStore)
    compactions, archives = len(state.compactions), len(state.store.archives)
    assert compactions >= 1 and archives >= 1
    await agent.run("hello", conversation_id="C")
    assert cm.conversation("B") is None
    assert drops(events) == [("B", compactions, archives)]


async def test_a_conversation_that_compacted_goes_after_those_that_did_not() -> None:
    events: list[Event] = []
    cm = ContextManager(window=3_000, max_conversations=3, event_handler=events.append)
    agent = Agent(FunctionModel(model), capabilities=[cm])
    await agent.run("the manager's own")
    await compacted(agent, "B")  # the least recently used
    await agent.run("hello", conversation_id="C")
    await agent.run("hello", conversation_id="D")
    assert cm.conversation("B") is not None and cm.conversation("C") is None
    assert [(cid, n) for cid, n, _ in drops(events)] == [("C", 0)]
    await agent.run("hello", conversation_id="E")  # D has not compacted either: it goes, B stays
    assert cm.conversation("B") is not None and cm.conversation("D") is None
