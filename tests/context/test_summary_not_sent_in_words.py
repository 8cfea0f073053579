"""A summary request that cannot fit the window is a `SummaryNotSent`, a `CompactionError` the
package exports and the docs name, and its line says what is sent whole and how much of the
request that takes: only what the agent has. It blamed "the instructions, the tool definitions and
the summary's own instruction" even for an agent with no instructions and no tools, sending the
reader looking for what was not there; the summary's instruction alone took 649 of the 1,183."""

from __future__ import annotations

import re
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

import compact_agent.context as lib
from compact_agent.context import CompactionError, ContextManager, SummaryNotSent
from compact_agent.context.testing import reply_to_library_request


def _long_answers(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return reply_to_library_request(messages) or ModelResponse(parts=[TextPart("ok " + "z" * 2000)])


async def _not_sent(with_tools: bool, **agent: Any) -> str:
    cm = ContextManager(window=1_000)
    run = Agent(FunctionModel(_long_answers), capabilities=[cm], **agent)
    if with_tools:
        @run.tool_plain
        def look(q: str) -> str:
            """Look something up."""
            return q
    history: list[ModelMessage] = []
    for _ in range(3):
        history = (await run.run("q", message_history=history)).all_messages()
    with pytest.raises(SummaryNotSent) as caught:
        await cm.compact_now(history)
    return str(caught.value)


async def test_an_agent_with_no_instructions_and_no_tools_is_told_of_the_summarys_instruction_alone() -> None:
    said = await _not_sent(False)
    assert re.fullmatch(r"the summary request would take [\d,]+ tokens of the 1,000-token window, leaving no room "
                        r"for the summary \(the summary's own instruction, sent whole, takes [\d,]+ of them\): not sent",
                        said), said


async def test_an_agent_with_instructions_and_tools_is_told_of_them() -> None:
    said = await _not_sent(True, instructions="Be brief.")
    assert "(the instructions, the tool definitions and the summary's own instruction, sent whole, take " in said


def test_it_is_exported_and_a_compaction_error() -> None:
    assert "SummaryNotSent" in lib.__all__ and issubclass(SummaryNotSent, CompactionError)
