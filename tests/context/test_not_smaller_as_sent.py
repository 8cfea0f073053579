"""Whether a compaction shrinks the request is judged on what the request sends.

A long command output in the kept tail is sent as its preview (the tool-result budget), while the
history as saved holds it whole. The compactor judged "would not shrink" on the saved history, so a
compaction of a request of 3,877 tokens was refused as leaving "at least 37,692": a /compact that
said no for a figure nobody sent, and a reactive compaction that left the provider's refusal
standing.
"""

from __future__ import annotations

import pytest
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import ContextManager


def _summary(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart("<summary>Read six modules, then the big log.</summary>")])


def _history(system: bool) -> list[ModelMessage]:
    opening = [SystemPromptPart("You are a careful agent.")] if system else []
    history: list[ModelMessage] = [ModelRequest(parts=[*opening, UserPromptPart("check the logs")])]
    for r in range(6):
        history.append(ModelResponse(parts=[ToolCallPart("read_file", {"path": f"m{r}.py"}, tool_call_id=f"c{r}")]))
        history.append(ModelRequest(parts=[ToolReturnPart("read_file", f"line {r}\n" * 300, tool_call_id=f"c{r}")]))
    history.append(ModelResponse(parts=[ToolCallPart("bash", {"command": "cat big.log"}, tool_call_id="big")]))
    history.append(ModelRequest(parts=[ToolReturnPart("bash", "log line with some words\n" * 6_000,
                                                      tool_call_id="big")]))
    return history


@pytest.mark.parametrize("system", [False, True])
async def test_a_compaction_whose_tail_holds_a_long_output_sent_as_its_preview_goes_ahead(system: bool) -> None:
    cm = ContextManager(window=16_000, summary_model=FunctionModel(_summary))
    history = _history(system)
    sent_before = cm.measure(list(history))  # the history as saved: the log whole
    new = await cm.compact_now(history)
    [result] = cm.compactions
    assert result.tokens_after < result.tokens_before < sent_before // 5  # judged on what is sent
    assert any(isinstance(p, ToolReturnPart) and p.tool_call_id == "big" for m in new for p in m.parts)
    assert result.event.detail["history_after"] > result.tokens_before  # saved, the log is whole
