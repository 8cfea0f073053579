"""An agent that reads 25 pages of ~350 tokens each through a tool, with a `ContextManager`, against
the fake OpenAI-compatible server in an 8K window: enough for several compactions, each asking the
server for a summary. Tests give the server's answers (`responder`) and check what it received; the
session notes' tests give the manager's settings, the window, the pages and how many."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.usage import UsageLimits

from compact_agent.context import CompactionSettings, ContextManager, Event
from compact_agent.context.compaction.notes import NOTES_MARK
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

WINDOW = 8_000
PAGES = 25


def is_summary_request(req: ChatRequest) -> bool:
    last = req.messages[-1]
    return last["role"] == "user" and "<summary>" in str(last.get("content"))


def is_notes_request(req: ChatRequest) -> bool:
    return NOTES_MARK in req.last_user_text()


def page_text(n: int, words: int = 350, word: str = "tok") -> str:
    return f"page {n}: " + " ".join(f"{word}{n}x{i}" for i in range(words))


Answer = Callable[[ChatRequest, int], Reply | None]
"""A test's own answer to a request, given the pages read so far: None leaves it to the reading."""


def output_call(read: int) -> Reply:
    """A call of pydantic-ai's output tool for an agent whose output type is `{"read": int}`."""
    return Reply.tools([("final_result", {"read": read})])


def eager(summary: str, asked: Callable[[ChatRequest], bool] = is_summary_request) -> Answer:
    """A model eager to give its structured answer: to a summary request (or what `asked` picks, the
    notes' with `is_notes_request`) that offers the output tool, a call of it (`{"read": 0}`); to one
    that does not, `summary`."""
    def answer(req: ChatRequest, read: int) -> Reply | None:
        if not asked(req):
            return None
        if "final_result" in req.tool_names:
            return output_call(0)
        return Reply.text(summary)
    return answer


def noting(notes: str | Answer, summary: str) -> Answer:
    """To a notes request `notes` (the text, or a test's own answer such as `eager(NOTES,
    is_notes_request)`), to a summary request `summary`; the rest is left to the reading."""
    def answer(req: ChatRequest, read: int) -> Reply | None:
        if is_notes_request(req):
            return notes(req, read) if callable(notes) else Reply.text(notes)
        return Reply.text(summary) if is_summary_request(req) else None
    return answer


def done(read: int) -> Reply:
    """The answer in text once every page is read."""
    return Reply.text("done")


def reading(summary: str | Answer, final: Callable[[int], Reply] | None = done, last: int = PAGES
            ) -> Callable[[ChatRequest], Reply]:
    """The server's answers: `summary` to a summary request (or, given an `Answer`, its reply to any
    request it answers), else the next page's read, and after the `last` page `final(pages read)`; with
    `final=None` the reading goes on past the last page, for an `Answer` that ends the run itself."""
    pages = {"n": 0}

    def responder(req: ChatRequest) -> Reply:
        if callable(summary):
            if (own := summary(req, pages["n"])) is not None:
                return own
        elif is_summary_request(req):
            return Reply.text(summary)
        if final is None or pages["n"] < last:
            pages["n"] += 1
            return Reply.tools([("read", {"page": pages["n"]})])
        return final(pages["n"])
    return responder


@dataclass
class Run:
    result: Any
    cm: ContextManager
    server: FakeOpenAIServer
    events: list[Event]

    def summaries(self) -> list[ChatRequest]:
        return [r for r in self.server.requests if is_summary_request(r)]


async def run_pages(responder: Callable[[ChatRequest], Reply], summary_settings: dict[str, Any] | None = None, *,
                    settings: CompactionSettings | None = None, window: int = WINDOW,
                    text: Callable[[int], str] = page_text, request_limit: int = 200, **agent_options: Any) -> Run:
    """`Agent(model, capabilities=[cm], **agent_options)` asked to read every page (`text(n)` each);
    the manager's compactions are always summaries (`compaction_records=False`, unless `settings`
    say otherwise) and its events are kept; its notes in flight are waited for before the server
    stops. With `summary_settings`, the summaries come from a `summary_model` of their own with those
    settings (on the same server)."""
    events: list[Event] = []
    with FakeOpenAIServer(responder, window=window, model="fake-model") as server:
        provider = OpenAIProvider(base_url=server.base_url, api_key="k")
        model = OpenAIChatModel("fake-model", provider=provider)
        writer = None if summary_settings is None else OpenAIChatModel(
            "fake-model", provider=provider, settings=summary_settings)  # type: ignore[arg-type]
        cm = ContextManager(window=window, event_handler=events.append, summary_model=writer,
                            settings=settings or CompactionSettings(compaction_records=False))
        agent = Agent(model, capabilities=[cm], **agent_options)

        @agent.tool_plain
        def read(page: int) -> str:
            """Read a page."""
            return text(page)

        result = await agent.run("Read every page.", usage_limits=UsageLimits(request_limit=request_limit))
        await cm.drain()
    return Run(result, cm, server, events)
