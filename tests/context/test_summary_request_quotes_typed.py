"""A summary request that leaves rounds out to fit still shows the summarizer what the user typed in them.

In a small window the summary request dropped whole rounds, oldest after the first, to fit: the rounds
of the user's recent messages went with them, the current task too, while the file reads after it
stayed, and the prompt asked for "every explicit request and intent of the user" with the request out
of view. The typed messages of the rounds left out are now quoted in the prompt, verbatim, newest
first, as the conversation's data (`summary_prompt.with_typed`), their room taken from the messages'.
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

from compact_agent.config import Limits
from compact_agent.context import CompactionSettings, ContextManager
from compact_agent.context.compaction.compactor import Compactor
from compact_agent.context.compaction.cuts import summarize_fitting
from compact_agent.context.compaction.summary_prompt import REMINDER, TYPED_HEAD, compact_prompt
from compact_agent.context.plumbing import tokens
from tests.fakes.anthropic_server import AnthropicReply, FakeAnthropicServer

SPEC = "SPECSTART please review every helper module against this spec:\n" + "- rule\n" * 40 + "SPECEND"
SLOWLY = "explain the median fix, slowly please"
FILE = "def helper():\n    return 1\n" * 120  # about 840 tokens


def reads(first: int, n: int) -> list[ModelMessage]:
    out: list[ModelMessage] = []
    for i in range(first, first + n):
        out.append(ModelResponse(parts=[ToolCallPart("read_file", {"path": f"h{i}.py"}, tool_call_id=f"c{i}")]))
        out.append(ModelRequest(parts=[ToolReturnPart("read_file", FILE, tool_call_id=f"c{i}")]))
    return out


def history() -> list[ModelMessage]:
    """The opening ask, a turn with its reads, a short typed message answered, then the current task
    (a spec spanning lines) and the nine whole-file reads it asked for."""
    return [ModelRequest(parts=[UserPromptPart("survey the helper modules")]),
            *reads(0, 3),
            ModelResponse(parts=[TextPart("Surveyed.")]),
            ModelRequest(parts=[UserPromptPart(SLOWLY)]),
            ModelResponse(parts=[TextPart("The median now sorts first.")]),
            ModelRequest(parts=[UserPromptPart(SPEC)]),
            *reads(3, 9)]


async def test_the_typed_messages_of_the_rounds_left_out_are_quoted() -> None:
    """Room for the opening ask and the newest reads only: the rounds of the short message and the
    spec are left out, and both are quoted in the prompt, newest first, the request within its room."""
    sent: list[tuple[list[ModelMessage], str]] = []

    async def summarize(messages: list[ModelMessage], prompt: str) -> str:
        sent.append((messages, prompt))
        return "<summary>ok</summary>"

    compactor = Compactor(Limits.for_window(8_000, 1_000))
    prompt = compact_prompt()
    room = 3_000
    _, dropped = await summarize_fitting(history(), prompt, summarize, room, quote=compactor.typed_left_out)
    [(messages, asked)] = sent
    shown = [p.content for m in messages for p in m.parts if isinstance(p, UserPromptPart)]
    assert dropped >= 3 and SLOWLY not in shown and SPEC not in shown  # their rounds left out
    assert TYPED_HEAD in asked and asked.endswith(REMINDER)  # the reminder still closes it
    quoted = asked[asked.index(TYPED_HEAD):]
    assert SPEC in quoted and SLOWLY in quoted
    assert quoted.index(SPEC) < quoted.index(SLOWLY)  # newest first
    assert "survey the helper modules" not in quoted  # sent in its message: not quoted again
    assert tokens.estimate(messages) + tokens.text_tokens(asked) - tokens.text_tokens(prompt) <= room


async def test_a_head_kept_before_the_summary_is_not_quoted() -> None:
    """`/compact --from`: the messages before the summarised part stay as they are, so the short
    message among them, its round left out, is not quoted; the spec, summarised, is."""
    sent: list[str] = []

    async def summarize(messages: list[ModelMessage], prompt: str) -> str:
        sent.append(prompt)
        return "<summary>ok</summary>"

    messages = history()
    head = messages.index(next(m for m in messages if isinstance(m, ModelRequest)
                               and any(getattr(p, "content", None) == SLOWLY for p in m.parts))) + 1
    await summarize_fitting(messages, compact_prompt("", "from"), summarize, 3_000,
                            quote=Compactor(Limits.for_window(8_000, 1_000)).typed_left_out, kept_before=head)
    [asked] = sent
    assert SPEC in asked[asked.index(TYPED_HEAD):] and SLOWLY not in asked


async def test_nothing_is_quoted_when_nothing_is_left_out() -> None:
    sent: list[str] = []

    async def summarize(messages: list[ModelMessage], prompt: str) -> str:
        sent.append(prompt)
        return "<summary>ok</summary>"

    prompt = compact_prompt()
    await summarize_fitting(history(), prompt, summarize, 50_000, quote=Compactor(Limits.for_window(80_000, 8_000)).typed_left_out)
    assert sent == [prompt]


def texts(message: dict[str, Any]) -> str:
    content = message["content"]
    return content if isinstance(content, str) else "\n".join(
        str(b.get("text", "")) + str(b.get("content", "")) for b in content)


async def test_a_compaction_in_a_small_window_shows_the_summarizer_the_task() -> None:
    """Over HTTP, a manual compaction in an 8,000-token window: the summary request the provider gets
    holds the spec and the short message, whose rounds did not fit, and goes within the window."""
    with FakeAnthropicServer(lambda req: AnthropicReply("<summary>Reviewing helpers.</summary>")) as server:
        model = AnthropicModel("claude-haiku-4-5", provider=AnthropicProvider(base_url=server.base_url,
                                                                              api_key="sk-ant-test"))
        cm = ContextManager(window=8_000, summary_model=model, settings=CompactionSettings(compaction_records=False))
        await cm.compact_now(history())
    assert server.rejected == []
    [req] = server.requests
    body = "\n".join(texts(m) for m in req.messages)
    assert body.count(FILE) < 12  # rounds were left out to fit
    assert SPEC in body and SLOWLY in body


def test_a_quoted_message_holding_the_prompts_own_words_stays_verbatim_under_a_small_cap() -> None:
    """Under a small output cap the prompt asks for no draft: only its own closing reminder is
    reworded, not a typed message quoted before it that holds the same words, and what a reply must
    hold is read from that closing reminder, whatever a quoted message says."""
    from compact_agent.context.compaction import summary_prompt as sp
    from compact_agent.context.compaction.user_messages import typed

    reminder = "please paste this into the prompt file:\n" + sp.REMINDER.strip() + "\nthanks"
    draft = "quote:\n" + sp.DRAFT
    for held in (reminder, draft):
        asked = sp.for_cap(sp.with_typed(sp.compact_prompt(), sp.typed_block(typed([held], 0))), 500)
        assert held.split("\n", 1)[1] in asked  # the quote, verbatim (its lines between its tags)
        assert sp.blocks(asked) == sp.NO_DRAFT_BLOCKS
        assert asked.rstrip().endswith(sp.REMINDER.replace(sp.BLOCKS, sp.NO_DRAFT_BLOCKS).rstrip())
