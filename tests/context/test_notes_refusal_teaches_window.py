"""A session-notes request refused as too long teaches the server's window, as a refused summary
request does (test_summary_refusal_teaches_window.py). Against a server whose window is smaller than
the one given, the notes request (the view, its instruction, and `max_tokens` sized for the given
window) was refused, a failed update that taught nothing: the next one was refused the same way.
Now the first refusal teaches the window (a "window" / "learned" event saying it was a notes
request's), and the next notes request is sized for it."""

from __future__ import annotations

from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.usage import UsageLimits

from compact_agent.agent.run.stream_events import window_line
from compact_agent.context import CompactionSettings, ContextManager, Event
from compact_agent.context.compaction.notes import NOTES_MARK, SECTIONS
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

SETTINGS = CompactionSettings(memory_enabled=True, memory_update_tokens=1, memory_update_tool_calls=1,
                              memory_start_fraction=0.0, collapse_enabled=False, priced_compaction=False,
                              compaction_records=False, memory_retry_s=0.001)


def asked(req: ChatRequest) -> int:
    return int(req.body.get("max_completion_tokens") or req.body.get("max_tokens") or 0)


async def test_a_refused_notes_request_teaches_the_window_and_the_next_fits_it() -> None:
    events: list[Event] = []
    notes: list[ChatRequest] = []
    pages = {"n": 0}

    def answer(req: ChatRequest) -> Reply:
        if NOTES_MARK in req.last_user_text():
            notes.append(req)
            return Reply.text("<notes>" + "\n\n".join(f"# {h}\nreading pages" for h in SECTIONS) + "</notes>")
        if "<summary>" in req.last_user_text():
            return Reply.text("<summary>Pages read so far.</summary>")
        pages["n"] += 1
        return Reply.tools([("read", {"page": pages["n"]})]) if pages["n"] <= 8 else Reply.text("done")

    with FakeOpenAIServer(answer, window=8_000) as server:
        model = OpenAIChatModel("fake-model", provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
        cm = ContextManager(window=16_000, settings=SETTINGS, event_handler=events.append)
        agent = Agent(model, capabilities=[cm])

        @agent.tool_plain
        def read(page: int) -> str:
            """Read a page."""
            return f"page {page}: " + " ".join(f"w{page}x{i}" for i in range(600))

        result = await agent.run("Read the pages.", usage_limits=UsageLimits(request_limit=40))
        await cm.drain()
    assert result.output == "done"
    refused = [req for req, _, _ in server.rejected]
    assert len(refused) == 1 and NOTES_MARK in refused[0].last_user_text(), [s for _, s, _ in server.rejected]
    assert cm.limits.window == 8_000
    learned = [e for e in events if e.layer == "window" and e.action == "learned"]
    assert [(e.tokens_after, e.trigger, e.detail) for e in learned] == [
        (8_000, "reactive", {"given": 16_000, "request": "notes"})]
    assert window_line(learned[0]).startswith("the server refused a session-notes request: its window is 8,000")
    assert notes and all(r.prompt_tokens + asked(r) <= 8_000 for r in notes)  # each answered one, after it
