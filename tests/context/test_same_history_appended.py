"""A history that says what the store holds is appended to; one that says something else is archived.

pydantic-ai's `ReinjectSystemPrompt(replace_existing=True)`, which its UI adapters add by default,
makes the system prompt anew before every request (a new timestamp), and a history sent through a
UI's message format and back comes back as new objects without the run's ids. Compared with `==`,
each was an edited history: the whole store was archived and rewritten before every request, and
the archives kept before compactions were pushed out of an `InMemoryStore`.
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.capabilities import ReinjectSystemPrompt
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import ContextManager, InMemoryStore


def reader(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Reads three pages after each prompt, then answers."""
    since = 0
    for m in reversed(messages):
        if isinstance(m, ModelRequest) and any(isinstance(p, UserPromptPart) for p in m.parts):
            break
        since += isinstance(m, ModelResponse)
    if since < 3:
        return ModelResponse(parts=[ToolCallPart("read", {"page": since + 1})])
    return ModelResponse(parts=[TextPart("done")])


class CountingStore(InMemoryStore):
    archived = 0

    def archive(self) -> Any:
        self.archived += 1
        return super().archive()


def agent_on(store: InMemoryStore, *capabilities: Any) -> Agent[None, str]:
    agent: Agent[None, str] = Agent(FunctionModel(reader), system_prompt="You read pages.",
                                    capabilities=[*capabilities, ContextManager(window=64_000, store=store)])

    @agent.tool_plain
    def read(page: int) -> str:
        """One page."""
        return f"page {page}"

    return agent


def said(messages: list[ModelMessage]) -> list[Any]:
    """What the messages say, without timestamps and run ids."""
    dumped = ModelMessagesTypeAdapter.dump_python(messages, mode="json")
    return [[{k: v for k, v in p.items() if k in ("part_kind", "content", "tool_name", "args")} for p in m["parts"]]
            for m in dumped]


def later(messages: list[ModelMessage]) -> list[ModelMessage]:
    """The messages as a UI round-trip gives them back: new objects, every timestamp later, no run id."""
    def part(p: Any) -> Any:
        return dataclasses.replace(p, timestamp=p.timestamp + timedelta(seconds=5)) if hasattr(p, "timestamp") else p
    return [dataclasses.replace(m, parts=[part(p) for p in m.parts], run_id=None)  # type: ignore[arg-type]
            for m in messages]


async def test_a_system_prompt_made_anew_before_each_request_archives_nothing() -> None:
    store = CountingStore()
    result = await agent_on(store, ReinjectSystemPrompt(replace_existing=True)).run("Read.")
    assert sum(isinstance(m, ModelResponse) for m in result.all_messages()) == 4
    assert store.archived == 0 and store.boundaries == []
    assert said(store.messages) == said(result.all_messages())


async def test_a_history_given_back_with_new_timestamps_is_appended_to() -> None:
    store = CountingStore()
    agent = agent_on(store)
    first = await agent.run("Read.")
    held = list(store.messages)
    second = await agent.run("Again.", message_history=later(first.all_messages()))
    assert store.archived == 0 and store.boundaries == []
    assert said(store.messages) == said(second.all_messages())
    # The store keeps what it held as it was first told it (the old timestamps), the rest appended.
    assert store.messages[:len(held)] == held
    assert store.messages[0].parts[0].timestamp < second.all_messages()[0].parts[0].timestamp  # type: ignore[union-attr]


async def test_a_history_whose_words_changed_is_still_archived_and_rewritten() -> None:
    store = CountingStore()
    agent = agent_on(store)
    first = await agent.run("Read.")
    held = list(store.messages)
    edited = later(first.all_messages())
    edited[0] = ModelRequest(parts=[SystemPromptPart("You read pages.", timestamp=datetime.now(UTC)),
                                    UserPromptPart("Read page 9.")])
    second = await agent.run("Again.", message_history=edited)
    assert store.archived == 1 and [b["trigger"] for b in store.boundaries] == ["history_changed"]
    assert store.archives == [held] and store.messages == second.all_messages()


async def test_a_history_with_messages_left_out_is_still_archived_and_rewritten() -> None:
    store = CountingStore()
    agent = agent_on(store)
    first = await agent.run("Read.")
    shorter = later(first.all_messages())
    del shorter[1:3]  # the first call and its result
    await agent.run("Again.", message_history=shorter)
    assert store.archived == 1 and [b["trigger"] for b in store.boundaries] == ["history_changed"]


def ended(messages: list[ModelMessage], outcome: Any) -> tuple[list[ModelMessage], ToolReturnPart, ToolReturnPart]:
    """`messages` as a UI gives them back (`later`), the first tool result's `outcome` changed: the
    history, that result as it was and as it is now."""
    edited = later(messages)
    at, result = next((i, p) for i, m in enumerate(edited) for p in m.parts if isinstance(p, ToolReturnPart))
    now = dataclasses.replace(result, outcome=outcome)
    edited[at] = dataclasses.replace(edited[at], parts=[now if p is result else p for p in edited[at].parts])  # type: ignore[arg-type]
    return edited, result, now


async def test_a_history_whose_result_became_an_error_is_still_archived_and_rewritten() -> None:
    """A result's `outcome` is what the model reads when it makes the result an error: a "failed"
    one goes as one (`{"error": ...}`, or the provider's error flag) where a "success" of the same
    words does not. Taken for the same history, the store kept the success, and a restart read the
    result back as one."""
    store = CountingStore()
    agent = agent_on(store)
    first = await agent.run("Read.")
    held = list(store.messages)
    edited, result, failed = ended(first.all_messages(), "failed")
    assert result.outcome == "success" and failed.model_response_str() != result.model_response_str()
    second = await agent.run("Again.", message_history=edited)
    assert store.archived == 1 and [b["trigger"] for b in store.boundaries] == ["history_changed"]
    assert store.archives == [held] and store.messages == second.all_messages()
    assert [p.outcome for m in store.messages for p in m.parts if isinstance(p, ToolReturnPart)][0] == "failed"


async def test_a_history_whose_result_ended_otherwise_but_reads_the_same_is_appended_to() -> None:
    """An "interrupted" (or "denied") result is sent as a plain one, as a "success" is: given back
    as the other (AG-UI before 0.1.11 gives an interrupted one back as a success), it says the same."""
    store = CountingStore()
    agent = agent_on(store)
    first = await agent.run("Read.")
    edited, result, interrupted = ended(first.all_messages(), "interrupted")
    assert interrupted.model_response_str() == result.model_response_str()
    second = await agent.run("Again.", message_history=edited)
    assert store.archived == 0 and store.boundaries == []
    assert said(store.messages) == said(second.all_messages())
