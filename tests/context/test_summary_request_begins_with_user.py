"""A summary request cut to its newest round still begins with a user message.

A summary request over its room loses its oldest rounds, and a round begins at the model's response:
with two rounds left, the one dropped was the opening request, and the request began with the
assistant's message. Anthropic's API refuses that ('messages: first message must use the "user"
role'), as do Bedrock and chat templates that want user and assistant in turn: the shared request
failed, and the summary was asked for again as plain text, at full price. A short note of the
program's saying the earlier conversation was left out now goes first (`cuts.user_first`), and a
call and its result still go together. Against the strict fake Anthropic server, over HTTP.
"""

from __future__ import annotations

from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.providers.anthropic import AnthropicProvider

from compact_agent.context import CompactionSettings, ContextManager
from compact_agent.context.compaction.cuts import LEFT_OUT, summarize_fitting
from compact_agent.context.compaction.summarizer import SharedPrefixSummarizer
from compact_agent.context.compaction.summary import MIDDLE_MARK
from compact_agent.context.compaction.summary_prompt import compact_prompt
from tests.fakes.anthropic_server import AnthropicReply, FakeAnthropicServer, MessagesRequest

LONG = "HEAD " + "x" * 40_000 + " TAIL"  # about 10,000 tokens


def summarizing() -> FakeAnthropicServer:
    return FakeAnthropicServer(lambda req: AnthropicReply("<summary>The module was explained.</summary>"))


def claude(server: FakeAnthropicServer) -> AnthropicModel:
    return AnthropicModel("claude-haiku-4-5", provider=AnthropicProvider(base_url=server.base_url, api_key="sk-ant-test"))


def texts(message: dict[str, Any]) -> list[str]:
    content = message["content"]
    return [content] if isinstance(content, str) else [str(b.get("text", "")) for b in content]


def roles(req: MessagesRequest) -> list[str]:
    return [str(m["role"]) for m in req.messages]


async def test_a_summary_request_cut_to_its_last_round_begins_with_the_note() -> None:
    """An opening question, an answer longer than an 8,000-token window, a thank-you: the question
    is dropped, the answer cut to its ends, and the note goes first."""
    history: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("Explain the module.")]),
                                   ModelResponse(parts=[TextPart(LONG)]),
                                   ModelRequest(parts=[UserPromptPart("Thanks.")])]
    with summarizing() as server:
        cm = ContextManager(window=8_000, summary_model=claude(server),
                            settings=CompactionSettings(compaction_records=False))
        compacted = await cm.compact_now(history)
    assert server.rejected == []  # was: HTTP 400, first message must use the "user" role
    [req] = server.requests  # the shared request, not the plain-text fallback after it
    assert roles(req) == ["user", "assistant", "user"]
    assert texts(req.messages[0]) == [LEFT_OUT]
    [answer] = texts(req.messages[1])
    assert MIDDLE_MARK in answer and answer.startswith("HEAD x") and answer.endswith("x TAIL")
    assert len(compacted) == 1


async def test_a_call_and_its_result_stay_together_after_the_note() -> None:
    """Two rounds, the newest a call and its long result: the opening request is dropped, the call
    and its result are sent together after the note, the result cut to its ends."""
    messages: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("Read m.py.")]),
        ModelResponse(parts=[TextPart("Reading it."), ToolCallPart("read_file", {"path": "m.py"}, tool_call_id="c1")]),
        ModelRequest(parts=[ToolReturnPart("read_file", LONG, tool_call_id="c1")]),
    ]
    with summarizing() as server:
        reply, dropped = await summarize_fitting(messages, compact_prompt("", "full"),
                                                 SharedPrefixSummarizer(claude(server)), 3_000)
    assert server.rejected == [] and "The module was explained." in reply and dropped == 1
    [req] = server.requests
    assert roles(req) == ["user", "assistant", "user"]
    assert texts(req.messages[0]) == [LEFT_OUT]
    assert [b["type"] for b in req.messages[1]["content"]] == ["text", "tool_use"]
    result, instruction = req.messages[2]["content"]
    assert result["type"] == "tool_result" and result["tool_use_id"] == "c1" and instruction["type"] == "text"
    assert MIDDLE_MARK in str(result["content"])
