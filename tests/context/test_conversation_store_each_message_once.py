"""pydantic-ai's own persistence (a `ConversationStore`: load, `agent.run(prompt, conversation=...)`,
`save(result)`) with a compacting manager, over four turns of a tool loop that compacts every turn.

The run returned the compacted history, and the store, which appends what a run added from its
`new_message_index`, saved each turn's compacted history after the whole conversation: its summary
and the messages it kept as new messages, the turns' prompts only inside the compaction message
(20, 30, 42 messages after turns 1 to 3). The next turn, loaded from the store, was not the history
the manager held: it archived and rewrote its store (a `store` / `replaced` event, which says another
process wrote the conversation) and compacted the lot again, twice the summaries of a caller who keeps
`all_messages()`. Now the run returns the whole conversation with what it added, the store keeps each
message once, and the next turn goes on from the compacted history the manager keeps: the model is
sent what it is sent in the `all_messages()` flow, request for request."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from compact_agent.context import CompactionSettings, ContextManager, Event, InMemoryStore
from compact_agent.context.plumbing.markers import is_compaction_message
from compact_agent.context.testing import library_request, reply_to_library_request

stores = pytest.importorskip("pydantic_ai.conversation_store")  # pydantic-ai 2.68+

TURNS = 6


class Model:
    """Four reads a turn, then an answer; counts what it is sent."""

    def __init__(self) -> None:
        self.sent: list[list[str]] = []  # each turn request, as what its messages say
        self.summaries = 0

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        size = sum(len(str(getattr(p, "content", ""))) for m in messages for p in m.parts)
        usage = RequestUsage(input_tokens=size // 4 + 150, output_tokens=10)
        if library_request(messages) == "summary":
            self.summaries += 1
        if (reply := reply_to_library_request(messages, "the turns so far " * 20, usage=usage)) is not None:
            return reply
        self.sent.append([f"{p.part_kind}:{getattr(p, 'content', '')!s:.40}" for m in messages for p in m.parts])
        calls = 0
        for m in reversed(messages):
            if any(isinstance(p, UserPromptPart) and str(p.content).startswith("turn") for p in m.parts):
                break
            calls += sum(isinstance(p, ToolCallPart) for p in m.parts)
        if calls < 4:
            return ModelResponse(parts=[ToolCallPart("read", {"n": calls}, tool_call_id=f"r{len(messages)}_{calls}")],
                                 usage=usage)
        return ModelResponse(parts=[TextPart("turn done")], usage=usage)


def agent_of(model: Model, events: list[Event]) -> tuple[Agent[None, str], ContextManager]:
    cm = ContextManager(window=6_000, settings=CompactionSettings(compaction_records=False),
                        event_handler=events.append)
    agent = Agent(FunctionModel(model), capabilities=[cm])

    @agent.tool_plain
    def read(n: int) -> str:
        return f"chunk {n}: " + "data " * 300

    return agent, cm


def prompts(messages: list[ModelMessage]) -> list[str]:
    return [str(p.content) for m in messages if isinstance(m, ModelRequest)
            for p in m.parts if isinstance(p, UserPromptPart)]


async def test_the_store_keeps_each_message_once_and_the_next_turn_pays_no_second_summary() -> None:
    kept_model, kept_events = Model(), []
    agent, cm = agent_of(kept_model, kept_events)
    history: list[ModelMessage] = []
    for turn in range(TURNS):
        history = (await agent.run(f"turn {turn}", message_history=history)).all_messages()
    assert kept_model.summaries >= 2  # the conversation compacts

    model, events = Model(), []
    agent, cm = agent_of(model, events)
    store = stores.InMemoryConversationStore()
    cid: str | None = None  # the first turn is given no conversation, as pydantic-ai's own examples start
    added: list[ModelMessage] = []  # what each run added, in order
    for turn in range(TURNS):
        conversation = await store.load(cid) if cid is not None else None
        result = await agent.run(f"turn {turn}", conversation=conversation)
        await store.save(result)
        cid = result.conversation_id
        added += result.new_messages()
        assert prompts(result.new_messages()[:1]) == [f"turn {turn}"]  # from the turn's prompt on

    assert cid is not None
    loaded = await store.load(cid)
    assert loaded is not None
    stored = loaded.messages
    assert prompts(stored) == [f"turn {t}" for t in range(TURNS)]  # each its own message, nothing else typed
    assert not any(is_compaction_message(m) for m in stored)
    assert stored == added  # each message once, in the order the runs added them
    assert [e for e in events if e.layer == "store"] == []  # nobody else wrote the conversation
    # The next turn went on from the compacted history: what the model was sent is what it is sent
    # when the caller keeps all_messages(), and so are the summaries.
    assert model.summaries == kept_model.summaries
    assert model.sent == kept_model.sent
    assert isinstance(cm.store, InMemoryStore) and is_compaction_message(cm.store.messages[0])


async def test_a_new_conversation_says_its_store_holds_none_of_it() -> None:
    """A conversation's first run, given `Conversation(new_message_index=0)` (the store holds none of
    it), returns the whole conversation too when it compacts, so the store keeps its first turn whole."""
    from pydantic_ai.conversation import Conversation

    model, events = Model(), []
    agent, cm = agent_of(model, events)
    store = stores.InMemoryConversationStore()
    result = await agent.run("turn 0 " + "long " * 3_000, conversation=Conversation(new_message_index=0))
    assert cm.compactions  # the first turn compacted
    await store.save(result)
    stored = (await store.load(result.conversation_id)).messages
    assert prompts(stored) == [prompts(result.all_messages())[0]] and prompts(stored)[0].startswith("turn 0 long")
    assert not any(is_compaction_message(m) for m in stored) and stored == result.all_messages()


async def test_a_caller_who_keeps_all_messages_still_gets_the_compacted_history() -> None:
    model, events = Model(), []
    agent, cm = agent_of(model, events)
    history: list[ModelMessage] = []
    compacted = 0
    for turn in range(TURNS):
        before = len(cm.compactions)
        result = await agent.run(f"turn {turn}", message_history=history)
        history = result.all_messages()
        if len(cm.compactions) > before:  # the compacted history, whole, as its new messages
            compacted += 1
            assert is_compaction_message(history[0]) and result.new_messages() == history
        else:
            assert prompts(result.new_messages()) == [f"turn {turn}"]
    assert isinstance(cm.store, InMemoryStore)
    assert compacted >= 2 and is_compaction_message(history[0]) and history == cm.store.messages


async def test_the_pages_turn_keeps_the_conversation_whole() -> None:
    """docs/library.md's `turn`, as printed, over turns of two conversations on one manager: each
    stored conversation holds its prompts and what its runs added, once, and no store was rewritten."""
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "library.md").read_text(encoding="utf-8")
    (source,) = re.findall(r"^```python conversations\n(.*?)^```$", page, re.S | re.M)
    namespace: dict[str, Any] = {}
    exec(compile(source, "docs/library.md", "exec"), namespace)
    turn = namespace["turn"]
    model, events = Model(), []
    agent, cm = agent_of(model, events)
    store = stores.InMemoryConversationStore()
    for t in range(TURNS):
        for cid in ("one", "two"):
            assert await turn(agent, store, cid, f"turn {t} of {cid}") == "turn done"
    for cid in ("one", "two"):
        loaded = await store.load(cid)
        assert loaded is not None
        stored = loaded.messages
        assert prompts(stored) == [f"turn {t} of {cid}" for t in range(TURNS)]
        assert not any(is_compaction_message(m) for m in stored)
    one, two = cm.conversation("one"), cm.conversation("two")
    assert one is not None and two is not None and one.compactions and two.compactions  # each in its own state
    assert model.summaries == len(one.compactions) + len(two.compactions)  # no compaction but the manager's own
    assert [e for e in events if e.layer == "store"] == []
