"""On Anthropic, the summary and notes requests keep the main request's `tool_choice`.

They went out with `tool_choice: {"type": "none"}` while every turn's request sends `auto`, and
Anthropic's prompt cache keeps the message blocks only for a request whose `tool_choice` is the
same (its docs: a change leaves the tools and the system prompt cached, not the messages): each
summary wrote the whole conversation to the cache at the write price where it was priced, and said
in docs/pipeline.md, as a read. They now send the main request's choice; the prompt asks for text
only, and a reply that calls a tool anyway is refused (nothing runs) and asked again. Against the
fake Anthropic server, over HTTP.
"""

from __future__ import annotations

from typing import Any

from pydantic_ai import Agent
from pydantic_ai.models.anthropic import AnthropicModel, AnthropicModelSettings
from pydantic_ai.providers.anthropic import AnthropicProvider

from compact_agent.context import CompactionSettings, ContextManager
from compact_agent.context.compaction.notes import NOTES_MARK, SECTIONS
from compact_agent.context.compaction.summary_prompt import NO_TOOLS_PREAMBLE
from tests.fakes.anthropic_server import AnthropicReply, FakeAnthropicServer, MessagesRequest

SUMMARY = NO_TOOLS_PREAMBLE.splitlines()[0]


def kind(req: MessagesRequest) -> str:
    """"summary", "notes" or "main", by the instruction the newest user message holds."""
    last = req.messages[-1]["content"]
    text = last if isinstance(last, str) else "\n".join(
        str(b.get("text", "")) + str(b.get("content", "")) for b in last if isinstance(b, dict))
    return "summary" if SUMMARY in text or "tools are disabled while summarising" in text else (
        "notes" if NOTES_MARK in text else "main")


class Claude:
    """Reads three pages then answers; a summary's first reply calls a tool (`calls_in_summary`)."""

    def __init__(self, calls_in_summary: bool = False) -> None:
        self.calls_in_summary = calls_in_summary
        self.main = 0
        self.summaries = 0

    def __call__(self, req: MessagesRequest) -> AnthropicReply:
        found = kind(req)
        if found == "notes":
            return AnthropicReply("\n\n".join(f"# {s}\nThe pages, some read." for s in SECTIONS))
        if found == "summary":
            self.summaries += 1
            if self.calls_in_summary and self.summaries == 1:
                return AnthropicReply("Let me look again.", (("read", {"page": 9}),))
            return AnthropicReply("<analysis>draft</analysis><summary>1. Primary Request: read the pages."
                                  "</summary>")
        self.main += 1
        if self.main <= 3:
            return AnthropicReply("Reading.", (("read", {"page": self.main}),))
        return AnthropicReply("Done reading.")


def agent_for(server: FakeAnthropicServer, cm: ContextManager, read: list[int]) -> Agent[None, str]:
    model = AnthropicModel("claude-sonnet-4-5", provider=AnthropicProvider(api_key="sk-ant-test",
                                                                           base_url=server.base_url))
    agent: Agent[None, str] = Agent(model, capabilities=[cm], model_settings=AnthropicModelSettings(
        anthropic_cache_messages=True))

    @agent.tool_plain(name="read")
    def read_page(page: int) -> str:
        """One page."""
        read.append(page)
        return f"page {page}: " + " ".join(f"line-{page}-{i}" for i in range(300))

    return agent


def choices(server: FakeAnthropicServer, of: str) -> list[Any]:
    return [r.body.get("tool_choice") for r in server.requests if kind(r) == of]


async def test_a_summary_request_sends_the_main_requests_tool_choice() -> None:
    read: list[int] = []
    cm = ContextManager(window=200_000, settings=CompactionSettings(compaction_records=False))
    with FakeAnthropicServer(Claude()) as server:
        result = await agent_for(server, cm, read).run("Read the pages.")
        await cm.compact_now(result.all_messages())
    main, summary = choices(server, "main"), choices(server, "summary")
    assert len(main) == 4 and len(summary) == 1, [kind(r) for r in server.requests]
    assert main[0] is not None and summary == [main[-1]], (main, summary)


async def test_a_summary_reply_that_calls_a_tool_is_refused_and_asked_again() -> None:
    read: list[int] = []
    claude = Claude(calls_in_summary=True)
    cm = ContextManager(window=200_000, settings=CompactionSettings(compaction_records=False))
    with FakeAnthropicServer(claude) as server:
        result = await agent_for(server, cm, read).run("Read the pages.")
        compacted = await cm.compact_now(result.all_messages())
    asked = [r for r in server.requests if kind(r) == "summary"]
    assert len(asked) == 2 and read == [1, 2, 3], ([kind(r) for r in server.requests], read)  # nothing ran
    refusal = asked[1].blocks("tool_result")[-1]  # the newest: the summary's call answered
    assert "Refused" in str(refusal.get("content")), asked[1].messages[-1]
    assert asked[1].body.get("tool_choice") == choices(server, "main")[-1]
    assert "read the pages" in str(compacted[0].parts[0]).lower() and cm.compactions[-1].summary


async def test_a_notes_request_sends_the_main_requests_tool_choice() -> None:
    read: list[int] = []
    settings = CompactionSettings(memory_enabled=True, memory_update_tokens=1, memory_update_tool_calls=1,
                                  memory_start_fraction=0.0, memory_retry_s=0.001)
    cm = ContextManager(window=200_000, settings=settings)
    with FakeAnthropicServer(Claude()) as server:
        await agent_for(server, cm, read).run("Read the pages.")
    main, notes = choices(server, "main"), choices(server, "notes")
    assert notes and main[0] is not None, [kind(r) for r in server.requests]
    assert all(choice == main[0] for choice in notes), (main, notes)
    assert cm.memory is not None and "some read" in (cm.memory.notes or "")
