"""A compaction lists the files an agent's own tools wrote, when the settings name those tools.

The ledger of changed files, which a compaction carries whatever the summary forgets, knew only the
coding tools' names (`write_file`, `edit`, Claude Code's and Codex's): an agent whose tool is
`save_file(path, content)` lost the file it had written at the first summary that did not mention
it. `CompactionSettings(file_tools=["save_file"])` now lists it, through any number of compactions."""

from __future__ import annotations

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage, UsageLimits

from compact_agent.context import CompactionSettings, ContextManager
from compact_agent.context.testing import reply_to_library_request

REPORT = "reports/q3-summary.md"


def writer_then_reader() -> FunctionModel:
    steps: list[int] = []

    def provider(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return answer(messages, steps)
    return FunctionModel(provider)


def answer(messages: list[ModelMessage], steps: list[int]) -> ModelResponse:
    size = sum(len(str(getattr(p, "content", ""))) for m in messages for p in m.parts) // 4
    usage = RequestUsage(input_tokens=size + 200, output_tokens=20)
    # A summary that forgets the report, as a model's may.
    if (reply := reply_to_library_request(messages, "Pages are being read.", usage=usage)) is not None:
        return reply
    steps.append(len(steps))
    if len(steps) == 1:
        return ModelResponse(parts=[ToolCallPart("Save_File", {"path": REPORT, "content": "Q3: up."})], usage=usage)
    if len(steps) < 16:
        return ModelResponse(parts=[ToolCallPart("read", {"page": len(steps)})], usage=usage)
    return ModelResponse(parts=[TextPart("done")], usage=usage)


async def run(settings: CompactionSettings) -> tuple[str, int]:
    cm = ContextManager(window=4_000, settings=settings)
    agent = Agent(writer_then_reader(), capabilities=[cm])

    @agent.tool_plain
    def read(page: int) -> str:
        return f"page {page}: " + " ".join(f"w{page}-{i}" for i in range(250))

    @agent.tool_plain(name="Save_File")
    def save_file(path: str, content: str) -> str:
        return f"saved {len(content)} characters"

    result = await agent.run("Write the report, then read the pages.", usage_limits=UsageLimits(request_limit=100))
    assert result.output == "done"
    return str(result.all_messages()), len(cm.compactions)


async def test_a_file_the_agents_own_tool_wrote_is_listed_through_compactions() -> None:
    history, compactions = await run(CompactionSettings(compaction_records=False, file_tools=["save_file"]))
    assert compactions >= 2
    assert REPORT in history


async def test_without_naming_the_tool_the_summary_alone_decides() -> None:
    history, compactions = await run(CompactionSettings(compaction_records=False))
    assert compactions >= 2
    assert REPORT not in history


def test_file_tools_are_checked_and_kept_as_a_tuple() -> None:
    assert CompactionSettings(file_tools={"save", "put"}).file_tools == ("put", "save")
    with pytest.raises(TypeError, match=r"^CompactionSettings\.file_tools must be a list of tool names, not 'save'"):
        CompactionSettings(file_tools="save")
