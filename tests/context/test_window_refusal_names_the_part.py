"""A window too small names the part of the request that is large, by who wrote it.

The refusal put everything but the instructions, tool definitions and tool results under "the
first message and the newest round" and, when that was the largest, told the user to "send a
shorter prompt": also when it was the note the newest steps were folded into (a 5-token prompt
beside it) or a system prompt, neither of which a shorter prompt makes smaller."""

from __future__ import annotations

import re

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import ContextManager, WindowTooSmallError


def reads_a_page(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[ToolCallPart("read_log", {"page": len(messages)})])


async def test_a_folded_note_that_does_not_fit_is_named_and_no_shorter_prompt_is_asked_for() -> None:
    agent = Agent(FunctionModel(reads_a_page), capabilities=[ContextManager(window=100)])

    @agent.tool_plain
    def read_log(page: int) -> str:
        """A page of the log."""
        return "x" * 5_000

    with pytest.raises(WindowTooSmallError) as caught:
        await agent.run("hello")
    words = str(caught.value)
    assert re.search(r"window is 100 \([\d,]+ for the note the newest steps were folded into, [\d,]+ for the "
                     r"instructions and tool definitions, [\d,]+ for what the user typed\): pass a larger window= "
                     r"to ContextManager$", words), words


async def test_a_large_system_prompt_is_named_as_such() -> None:
    agent = Agent(FunctionModel(lambda messages, info: ModelResponse(parts=[TextPart("answer")])),
                  capabilities=[ContextManager(window=1_000)], system_prompt="Rule: be brief. " * 400)
    with pytest.raises(WindowTooSmallError) as caught:
        await agent.run("Hello there, please answer.")
    assert re.search(r"window is 1,000 \([\d,]+ for the system prompt, [\d,]+ for what the user typed\): pass a "
                     r"larger window= to ContextManager, or give the agent a shorter system prompt$", str(caught.value))


def test_digests_of_collapsed_rounds_are_not_what_the_user_typed() -> None:
    """'905 for what the user typed' was said of a 47-character prompt beside nine digests."""
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    from compact_agent.context.layers.digest import DIGEST_HEADER
    from compact_agent.context.plumbing.refusal import window_refusal

    digests = [UserPromptPart(f"{DIGEST_HEADER} 4 earlier messages were collapsed: read_file(path=\"m{i}.py\") -> ok "
                              + "x" * 360) for i in range(9)]
    view = [ModelRequest(parts=[UserPromptPart("survey the helper modules slice by slice, third"), *digests])]
    words = window_refusal(view, size=2_100, window=2_048, fixed=800, scale=lambda n: n)
    said = dict((what, int(n.replace(",", ""))) for n, what in re.findall(r"([\d,]+) for ([a-z ]+?)(?=, [\d,]+ for|\))",
                                                                          words))
    assert said["the digests earlier steps were collapsed into"] > 900, words
    assert said["what the user typed"] < 20, words
    assert words.endswith("pass a larger window= to ContextManager"), words
