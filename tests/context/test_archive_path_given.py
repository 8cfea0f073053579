"""A store's `archive()` that names its copy by a string (a common way to write a path) is taken as
that path: the second compaction failed with Python's words ("'str' object has no attribute
'parent'"), every one after it too. Anything else it returns is refused in words, nothing rewritten."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage, UsageLimits

from compact_agent.context import CompactionError, ContextManager, Event, InMemoryStore
from compact_agent.context.testing import reply_to_library_request

from .test_store_failures import Model, history


class NamedCopies(InMemoryStore):
    """Keeps its archives in memory, and says what it would call each copy."""

    def __init__(self, name: object) -> None:
        super().__init__()
        self.name = name

    def archive(self) -> Path | None:
        super().archive()
        return self.name  # type: ignore[return-value]


async def test_an_archive_named_by_a_string_is_that_path_at_every_compaction(tmp_path: Path) -> None:
    store = NamedCopies(str(tmp_path / "archive.jsonl"))
    cm = ContextManager(window=8_000, store=store)
    compacted = await cm.compact_now(history(30), model=FunctionModel(Model()))
    again = await cm.compact_now(compacted + history(30), model=FunctionModel(Model()))
    assert [c.archive for c in cm.compactions] == [tmp_path / "archive.jsonl"] * 2
    assert store.messages == again and len(store.boundaries) == 2


async def test_an_archive_that_returns_no_path_is_refused_in_words() -> None:
    store = NamedCopies(5)
    cm, given = ContextManager(window=8_000, store=store), history(30)
    with pytest.raises(CompactionError) as caught:
        await cm.compact_now(given, model=FunctionModel(Model()))
    assert str(caught.value) == ("the store's archive() returned int, not the path of its copy or None, "
                                 "so the session was not rewritten")
    assert store.messages == given and store.boundaries == [] and cm.compactions == []




def log_reader(agent_pages: int) -> Agent[None, str]:
    """The docs' example agent: reads a log one page (about 900 tokens) per tool call, then answers."""
    read: list[int] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        sent = sum(len(str(getattr(p, "content", ""))) for m in messages for p in m.parts)
        usage = RequestUsage(input_tokens=sent // 4 + 200, output_tokens=20)
        if (reply := reply_to_library_request(messages, f"Read pages 1-{len(read)}.", usage=usage)) is not None:
            return reply
        if len(read) < agent_pages:
            return ModelResponse(parts=[ToolCallPart("read_log", {"page": len(read) + 1})], usage=usage)
        return ModelResponse(parts=[TextPart("All read.")], usage=usage)

    agent = Agent(FunctionModel(model))

    @agent.tool_plain
    def read_log(page: int) -> str:
        read.append(page)
        return f"page {page}: " + " ".join(f"ev-{page}-{i}" for i in range(400))

    return agent


async def test_a_run_whose_store_names_copies_by_strings_keeps_compacting(tmp_path: Path) -> None:
    """The failure users met: every compaction after the first failed (a `compact` / `failed` event)."""
    events: list[Event] = []
    store = NamedCopies(str(tmp_path / "archive.jsonl"))
    cm = ContextManager(window=8_000, store=store, event_handler=events.append)
    await log_reader(20).run("go", capabilities=[cm], usage_limits=UsageLimits(request_limit=100))
    assert [e.detail.get("error") for e in events if e.action == "failed"] == []
    assert len(cm.compactions) >= 2 and {c.archive for c in cm.compactions} == {tmp_path / "archive.jsonl"}
