"""A summary request refused as too long teaches the server's window, as a refused chat request does.

Against a server whose window is smaller than the one given, every summary request asked for what
the given window leaves (`max_tokens` sized for 16K) and was refused ("maximum context length is
8000 tokens"); the compactor dropped rounds and asked again, refused each time, and nothing was
learned: a /compact sent 4 refused requests, and in a run 5 summary requests were refused before a
refused chat request taught the window. Now the first refusal teaches it (a "window" / "learned"
event saying it was a summary request's), and the summary is asked again, sized for that window.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.usage import UsageLimits

from compact_agent.context import CompactionEvent, CompactionSettings, ContextManager, Event
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

SUMMARY = "<summary>"  # in the summary prompt (summary_prompt.py)


def reader(pages: int) -> Callable[[ChatRequest], Reply]:
    read = {"n": 0}

    def answer(req: ChatRequest) -> Reply:
        if SUMMARY in req.last_user_text():
            return Reply.text("<summary>Pages read so far.</summary>")
        read["n"] += 1
        return Reply.tools([("read", {"page": read["n"]})]) if read["n"] <= pages else Reply.text("done")
    return answer


def agent_on(server: FakeOpenAIServer, cm: ContextManager) -> Agent[None, str]:
    model = OpenAIChatModel("fake-model", provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
    agent: Agent[None, str] = Agent(model, capabilities=[cm])

    @agent.tool_plain
    def read(page: int) -> str:
        """Read a page."""
        return f"page {page}: " + " ".join(f"w{page}x{i}" for i in range(600))

    return agent


def asked(req: ChatRequest) -> int:
    return int(req.body.get("max_completion_tokens") or req.body.get("max_tokens") or 0)


def summaries(server: FakeOpenAIServer) -> list[ChatRequest]:
    return [r for r in server.requests if SUMMARY in r.last_user_text()]


async def test_compact_now_learns_the_window_from_its_refused_summary_and_asks_again_within_it() -> None:
    events: list[Event] = []
    cm = ContextManager(window=16_000, settings=CompactionSettings(compaction_records=False),
                        event_handler=events.append)
    with FakeOpenAIServer(reader(5), window=8_000) as server:
        result = await agent_on(server, cm).run("Read the pages.", usage_limits=UsageLimits(request_limit=20))
        assert not server.rejected and not cm.compactions  # the run fits 8K: the window is not known yet
        compacted = await cm.compact_now(result.all_messages())
    assert compacted and len(cm.compactions) == 1
    assert len(server.rejected) == 1, [s for _, s, _ in server.rejected]
    refused, retried = summaries(server)
    assert server.rejected[0][0] is refused and refused.prompt_tokens + asked(refused) > 8_000
    assert retried.prompt_tokens + asked(retried) <= 8_000
    assert cm.limits.window == 8_000 and cm.window_learned is not None and cm.window_learned.given == 16_000
    learned = [e for e in events if e.layer == "window" and e.action == "learned"]
    assert [(e.tokens_after, e.trigger, e.detail) for e in learned] == [
        (8_000, "reactive", {"given": 16_000, "request": "summary"})]


async def test_a_run_learns_the_window_from_the_first_refused_summary() -> None:
    events: list[Event] = []
    cm = ContextManager(window=16_000, settings=CompactionSettings(compaction_records=False),
                        event_handler=events.append)
    with FakeOpenAIServer(reader(30), window=12_500) as server:
        result = await agent_on(server, cm).run("Read the pages.", usage_limits=UsageLimits(request_limit=60))
    assert result.output == "done"
    assert len(server.rejected) == 1 and SUMMARY in server.rejected[0][0].last_user_text()
    assert cm.limits.window == 12_500
    compactions = [e for e in events if isinstance(e, CompactionEvent)]
    assert compactions and not [e for e in compactions if e.action == "failed"]
    assert all(r.prompt_tokens + asked(r) <= 12_500 for r in summaries(server)[1:])
