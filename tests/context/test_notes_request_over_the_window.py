"""A session-notes request that cannot fit the window is not sent.

The notes request repeats the request just sent (instructions, tools, the view) and appends its
own instruction, the previous notes included. In a small window with long instructions that can
leave no room at all, and it was sent anyway asking for one token, refused by the provider as too
long. It is now checked before sending, as a summary request is (882f251): not sent, reported as a
failed extraction is (a `memory` / `failed` event whose error ends "not sent"), and the run goes on.
"""

from __future__ import annotations

from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.usage import UsageLimits

from compact_agent.context import CompactionSettings, ContextManager, Event, NotesEvent
from compact_agent.context.compaction.notes import NOTES_MARK
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

WINDOW = 1_200
RULES = "Rules: " + "be careful. " * 200  # about 600 tokens, sent with every request
SETTINGS = CompactionSettings(memory_enabled=True, memory_update_tokens=1, memory_update_tool_calls=1,
                              memory_start_fraction=0.0, collapse_enabled=False, priced_compaction=False)


def reading(notes_asked: list[ChatRequest]) -> FakeOpenAIServer:
    pages = {"n": 0}

    def answer(req: ChatRequest) -> Reply:
        text = req.last_user_text()
        if NOTES_MARK in text:
            notes_asked.append(req)
            return Reply.text("<notes># Task\nread pages</notes>")
        if "<summary>" in text:
            return Reply.text("<summary>Pages read so far.</summary>")
        pages["n"] += 1
        return Reply.tools([("read", {"page": pages["n"]})]) if pages["n"] <= 4 else Reply.text("done")
    return FakeOpenAIServer(answer, window=WINDOW)


async def test_a_notes_request_over_the_window_is_not_sent_and_the_run_goes_on() -> None:
    events: list[Event] = []
    notes_asked: list[ChatRequest] = []
    with reading(notes_asked) as server:
        model = OpenAIChatModel("fake-model", provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
        cm = ContextManager(window=WINDOW, settings=SETTINGS, event_handler=events.append)
        agent = Agent(model, capabilities=[cm], instructions=RULES)

        @agent.tool_plain
        def read(page: int) -> str:
            return f"page {page}: " + " ".join(f"w{page}x{i}" for i in range(60))

        result = await agent.run("Read every page.", usage_limits=UsageLimits(request_limit=40))
        await cm.drain()
    assert result.output == "done"
    assert server.rejected == [] and notes_asked == []  # each was a notes request, over the window
    failed = [e for e in events if isinstance(e, NotesEvent) and e.action == "failed"]
    assert failed and all(str(e.detail.get("error")).startswith("the notes request would take ") for e in failed)
    assert all(str(e.detail.get("error")).endswith(": not sent") for e in failed)
