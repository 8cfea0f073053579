"""`compact_now` of a conversation that has a run in progress on the manager is refused in one line.

Called from a tool (a model asking for a compaction), it compacted the history it was given and
rewrote the conversation's store, while the run went on with its own, uncompacted history: the
run's next request rewrote the store back and archived the compacted copy, so nothing was compacted
and the store said otherwise in between. Between runs it compacts as before."""

from __future__ import annotations

from pydantic_ai import Agent, RunContext
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import CompactionError, CompactionSettings, ContextManager, InMemoryStore
from compact_agent.context.testing import reply_to_library_request


def provider(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if (reply := reply_to_library_request(messages, "Read pages 1-4.")) is not None:
        return reply
    last = messages[-1]
    if isinstance(last, ModelRequest) and any(isinstance(p, ToolReturnPart) and p.tool_name == "compact"
                                              for p in last.parts):
        return ModelResponse(parts=[TextPart("done")])
    pages = sum(isinstance(p, ToolReturnPart) for m in messages for p in m.parts)
    if pages < 4:
        return ModelResponse(parts=[ToolCallPart("read", {"page": pages + 1})])
    return ModelResponse(parts=[ToolCallPart("compact", {})])


async def test_compact_now_from_a_tool_of_the_run_is_refused_and_works_between_runs() -> None:
    store = InMemoryStore()
    cm = ContextManager(window=64_000, store=store, settings=CompactionSettings(compaction_records=False))
    agent = Agent(FunctionModel(provider), capabilities=[cm])
    refusals: list[str] = []

    @agent.tool_plain
    def read(page: int) -> str:
        return f"page {page}: " + "word " * 2_000

    @agent.tool
    async def compact(ctx: RunContext[object]) -> str:
        try:
            await cm.compact_now(ctx.messages, model=FunctionModel(provider))
        except CompactionError as e:
            refusals.append(str(e))
            return "not now"
        return "compacted"

    result = await agent.run("Read the pages, then compact.")

    assert result.output == "done" and len(refusals) == 1
    assert "has a run in progress on this ContextManager: compact_now compacts a history between runs" in refusals[0]
    assert not cm.compactions and not store.archives and store.messages == result.all_messages()
    # Between runs it goes ahead.
    compacted = await cm.compact_now(result.all_messages(), model=FunctionModel(provider))
    assert len(compacted) < len(result.all_messages()) and store.messages == compacted


async def test_the_refusal_is_only_for_the_conversation_that_runs() -> None:
    cm = ContextManager(window=64_000, settings=CompactionSettings(compaction_records=False))
    other = Agent(FunctionModel(provider), capabilities=[cm])

    @other.tool_plain
    def read(page: int) -> str:
        return f"page {page}: " + "word " * 2_000

    @other.tool_plain
    def compact() -> str:
        return "skipped"

    earlier = await other.run("Read the pages, then compact.")
    history = earlier.all_messages()
    seen: list[int] = []

    agent = Agent(FunctionModel(provider), capabilities=[cm])
    agent.tool_plain(read)

    async def compact_the_other(ctx: RunContext[object]) -> str:
        seen.append(len(await cm.compact_now(history, model=FunctionModel(provider))))  # another conversation
        return "compacted the other one"

    agent.tool(name="compact")(compact_the_other)
    result = await agent.run("Read the pages, then compact.")
    assert result.output == "done" and seen and seen[0] < len(history)
