"""A summary request that cannot fit the window is not sent.

With long instructions in a small window, what a summary request cannot do without (the
instructions, the tool definitions, the summary's own instruction and the compaction message the
history starts with) can exceed the window however its messages are cut. It was sent anyway, with
`max_tokens` 1, and refused by the provider as too long ("you requested 1,232 tokens"): a request
over the window. It now fails as a compaction that did not happen, before anything is sent: in a
run, a `compact` / `failed` event (the request then shrunk as it is when a compaction fails), from
`compact_now` a `CompactionError` that says so."""

from __future__ import annotations

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.usage import UsageLimits

from compact_agent.context import CompactionError, CompactionEvent, CompactionSettings, ContextManager, Event
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

WINDOW = 800
RULES = "Rules: " + "be careful. " * 90  # about 270 tokens, sent with every request


def reading() -> FakeOpenAIServer:
    pages = {"n": 0}

    def answer(req: ChatRequest) -> Reply:
        if "<summary>" in req.last_user_text():
            return Reply.text("<summary>Pages read so far.</summary>")
        pages["n"] += 1
        return Reply.tools([("read", {"page": 100 * pages["n"]})]) if pages["n"] <= 12 else Reply.text("done")
    return FakeOpenAIServer(answer, window=WINDOW)


def reader(server: FakeOpenAIServer, events: list[Event], records: bool = True
           ) -> tuple[Agent[None, str], ContextManager]:
    model = OpenAIChatModel("fake-model", provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
    cm = ContextManager(window=WINDOW, event_handler=events.append,
                        settings=CompactionSettings(compaction_records=records))
    agent = Agent(model, capabilities=[cm], instructions=RULES)

    @agent.tool_plain
    def read(page: int) -> str:
        return f"page {page}: " + " ".join(f"w{page}x{i}" for i in range(400 if page % 3 == 0 else 40))
    return agent, cm


async def test_a_summary_request_over_the_window_is_not_sent() -> None:
    events: list[Event] = []
    with reading() as server:
        agent, _ = reader(server, events)
        result = await agent.run("Read every page. " + "Please. " * 50, usage_limits=UsageLimits(request_limit=100))
    assert result.output == "done"
    assert server.rejected == []  # was the summary request, 1,232 tokens for an 800-token window
    failed = [e for e in events if isinstance(e, CompactionEvent) and e.action == "failed"]
    assert failed and all("not sent" in str(e.detail.get("error")) for e in failed)


async def test_compact_now_keeps_a_record_where_the_summary_request_would_not_fit() -> None:
    """A record of the steps needs no request: it stands in (nothing is sent), and the event says
    why no summary was asked for. Raised instead, a session whose summary request could never fit
    could never be compacted."""
    events: list[Event] = []
    with reading() as server:
        agent, cm = reader(server, events)
        result = await agent.run("Read every page. " + "Please. " * 50, usage_limits=UsageLimits(request_limit=100))
        sent = len(server.requests)
        await cm.compact_now(result.all_messages())
        assert len(server.requests) == sent
    done = cm.compactions[-1]
    assert done.trigger == "manual" and done.strategy == "record" and done.tokens_after < done.tokens_before
    assert "not sent" in str(done.event.detail.get("summary_unsent")), done.event.detail


async def test_compact_now_says_the_summary_request_would_not_fit() -> None:
    """Without records (`compaction_records=False`) nothing can stand in: it says why."""
    events: list[Event] = []
    with reading() as server:
        agent, cm = reader(server, events, records=False)
        result = await agent.run("Read every page. " + "Please. " * 50, usage_limits=UsageLimits(request_limit=100))
        history: list[ModelMessage] = result.all_messages()
        sent = len(server.requests)
        with pytest.raises(CompactionError, match=r"^the summary request would take [\d,]+ tokens of the 800-token "
                                                  r"window.*not sent"):
            await cm.compact_now(history)
        assert len(server.requests) == sent
    assert server.rejected == []
