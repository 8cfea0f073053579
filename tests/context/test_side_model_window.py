"""A summary or notes model of its own is sent requests that fit ITS window, not the run's.

A `summary_model` (or a session-notes model) other than the run's may have a smaller window than the
run's model (a cheaper model beside a long-context one). Its requests were sized and checked against
the run's window only: a summary request of a 32K-window conversation went to a 6K-window model
whole, and was refused as too long (again at each retry, with a few rounds fewer each time); a
notes request carried half the run's window of transcript to a model that could not take it, and
every extraction failed. Where pydantic-ai knows the side model's window (its profile's
`context_window`), its requests are now cut to fit it, as the run's are to the run's window, and a
request that cannot fit is not sent.
"""

from __future__ import annotations

import pytest
from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.profiles import ModelProfile
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.usage import UsageLimits

from compact_agent.config import Limits
from compact_agent.context import (
    CompactionError,
    CompactionEvent,
    CompactionSettings,
    ContextManager,
    Event,
    SessionMemory,
)
from compact_agent.context.compaction.keep import Keeper
from compact_agent.context.compaction.notes import (
    NOTES_MARK,
    SECTIONS,
    fitted_transcript,
    separate_instruction,
)
from compact_agent.context.plumbing import tokens
from compact_agent.context.plumbing.settings import side_room
from compact_agent.context.wiring import Internals
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

SIDE_WINDOW = 6_000
NOTES_WINDOW = 3_000


def main_server() -> FakeOpenAIServer:
    pages = {"n": 0}

    def answer(req: ChatRequest) -> Reply:
        pages["n"] += 1
        return Reply.tools([("read", {"page": pages["n"]})]) if pages["n"] <= 16 else Reply.text("done")
    return FakeOpenAIServer(answer, model="big-model")


def side_server(window: int = SIDE_WINDOW) -> FakeOpenAIServer:
    def answer(req: ChatRequest) -> Reply:
        if NOTES_MARK in req.last_user_text():
            return Reply.text("<notes>" + "\n\n".join(f"# {s}\nPages read." for s in SECTIONS) + "</notes>")
        return Reply.text("<summary>Pages read so far.</summary>")
    return FakeOpenAIServer(answer, model="small-model", window=window)


def model(server: FakeOpenAIServer, name: str, window: int | None = None) -> OpenAIChatModel:
    profile = ModelProfile(context_window=window) if window is not None else None
    return OpenAIChatModel(name, provider=OpenAIProvider(base_url=server.base_url, api_key="k"), profile=profile)


def reader(cm: ContextManager, main: FakeOpenAIServer, instructions: str | None = None) -> Agent[None, str]:
    agent = Agent(model(main, "big-model"), capabilities=[cm], instructions=instructions)

    @agent.tool_plain
    def read(page: int) -> str:
        return f"page {page}: " + " ".join(f"w{page}x{i}" for i in range(1_000))
    return agent


async def test_a_summary_model_of_its_own_is_sent_summary_requests_that_fit_its_window() -> None:
    events: list[Event] = []
    with main_server() as main, side_server() as side:
        cm = ContextManager(window=32_000, summary_model=model(side, "small-model", SIDE_WINDOW),
                            settings=CompactionSettings(compaction_records=False), event_handler=events.append)
        result = await reader(cm, main).run("Read every page.", usage_limits=UsageLimits(request_limit=60))
    assert result.output == "done"
    assert side.requests and side.rejected == []  # each was over its 6,000-token window
    compacted = [e for e in events if isinstance(e, CompactionEvent) and e.action == "full"]
    assert compacted and not [e for e in events if isinstance(e, CompactionEvent) and e.action == "failed"]
    assert all(r.prompt_tokens < SIDE_WINDOW for r in side.requests)


async def test_a_notes_model_of_its_own_is_sent_notes_requests_that_fit_its_window() -> None:
    events: list[Event] = []
    settings = CompactionSettings(memory_enabled=True, memory_update_tool_calls=1, memory_start_fraction=0.0,
                                  compaction_records=False)  # notes of every 4K tokens or so: 2-3 pages
    with main_server() as main, side_server(NOTES_WINDOW) as side:
        notes = SessionMemory(None, settings, notes_model=model(side, "small-model", NOTES_WINDOW))
        cm = ContextManager.wired(Internals(memory=notes), window=32_000, settings=settings,
                                  event_handler=events.append)
        await reader(cm, main).run("Read every page.", usage_limits=UsageLimits(request_limit=60))
        await cm.drain()
    updates = [e for e in events if e.layer == "memory" and e.action == "update"]
    assert side.requests and side.rejected == []  # the transcript was cut to half the run's window
    assert updates and not [e for e in events if e.layer == "memory" and e.action == "failed"]


async def test_a_summary_request_that_cannot_fit_the_summary_models_window_is_not_sent() -> None:
    """The run's instructions alone fill the summary model's window: nothing is sent to it, and
    `compact_now` says why in a line naming that window."""
    with main_server() as main, side_server(window=1_000) as side:
        cm = ContextManager(window=32_000, summary_model=model(side, "small-model", 1_000),
                            settings=CompactionSettings(compaction_records=False))  # no record to stand in
        agent = reader(cm, main, instructions="Rules: " + "cite the page you read. " * 300)  # about 1,800 tokens
        result = await agent.run("Read every page.", usage_limits=UsageLimits(request_limit=60))
        with pytest.raises(CompactionError, match=r"^the summary request would take [\d,]+ tokens of the summary "
                                                  r"model's 1,000-token window.*not sent"):
            await cm.compact_now(result.all_messages())
    assert side.requests == []


def test_the_summary_and_notes_requests_of_a_smaller_window_are_sized_by_one_rule() -> None:
    """A side model's request asks for a quarter of its window at most and carries what the rest
    leaves after the estimate's margin (2%), whether it writes the summary or the notes."""
    assert side_room(6_000, 20_000) == (1_500, 6_000 - 1_500 - 120)  # a quarter of the window
    assert side_room(6_000, 1_000) == (1_000, 6_000 - 1_000 - 120)  # less, when less is asked for
    keeper = Keeper(Limits.for_window(32_000, 8_000))  # its output reserve: 8,000
    keeper.summary_window = 6_000
    assert keeper.summary_room(0) == 4_380  # the room, in tokens the estimate counts (ratio 1)
    notes = separate_instruction(None, "", 8_000, ("x" * 99 + "\n") * 10_000, 100_000, 6_000)
    assert "Stay under about 1500 tokens" in notes  # a quarter of the window
    assert 4_350 <= tokens.text_tokens(notes) <= 4_380  # the transcript's end fills the room, a line at most short


def test_a_notes_request_whose_cut_falls_at_a_lines_start_still_fits() -> None:
    """The transcript's end fills the room the notes model's window leaves, the note saying that
    earlier entries were cut included: it came on top, and a cut falling at a line's start (short
    lines) left the request 3 tokens over its room, and not sent."""
    notes = separate_instruction(None, "", 8_000, "a line\n" * 10_000, 100_000, 6_000)
    assert notes.count("[earlier entries cut]") == 1
    assert 4_375 <= tokens.text_tokens(notes) <= 4_380  # 6,000 less 1,500 for the notes and 120 of margin
    assert fitted_transcript("a line\n" * 10, 30) == "[earlier entries cut]\na line\n"  # 29 characters
    assert fitted_transcript("a line\n" * 10, 0) == "[earlier entries cut]\n"  # no room: no entry
