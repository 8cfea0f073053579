"""An agent that reads 25 pages of ~350 tokens each through a tool, with a `ContextManager`, against
the fake OpenAI-compatible server in an 8K window: enough for several compactions, each asking the
server for a summary. Tests give the server's answers (`responder`) and check what it received."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.usage import UsageLimits

from compact_agent.context import CompactionSettings, ContextManager, Event
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

WINDOW = 8_000
PAGES = 25


def is_summary_request(req: ChatRequest) -> bool:
    last = req.messages[-1]
    return last["role"] == "user" and "<summary>" in str(last.get("content"))


def page_text(n: int) -> str:
    return f"page {n}: " + " ".join(f"tok{n}x{i}" for i in range(350))


def reading(summary: str) -> Callable[[ChatRequest], Reply]:
    """The server's answers: `summary` to a summary request, else the next page's read, then "done"."""
    pages = {"n": 0}

    def responder(req: ChatRequest) -> Reply:
        if is_summary_request(req):
            return Reply.text(summary)
        if pages["n"] < PAGES:
            pages["n"] += 1
            return Reply.tools([("read", {"page": pages["n"]})])
        return Reply.text("done")
    return responder


@dataclass
class Run:
    result: Any
    cm: ContextManager
    server: FakeOpenAIServer
    events: list[Event]

    def summaries(self) -> list[ChatRequest]:
        return [r for r in self.server.requests if is_summary_request(r)]


async def run_pages(responder: Callable[[ChatRequest], Reply], summary_settings: dict[str, Any] | None = None,
                    **agent_options: Any) -> Run:
    """`Agent(model, capabilities=[cm], **agent_options)` asked to read every page; the manager's
    compactions are always summaries (`compaction_records=False`) and its events are kept. With
    `summary_settings`, the summaries come from a `summary_model` of their own with those settings
    (on the same server)."""
    events: list[Event] = []
    with FakeOpenAIServer(responder, window=WINDOW, model="fake-model") as server:
        provider = OpenAIProvider(base_url=server.base_url, api_key="k")
        model = OpenAIChatModel("fake-model", provider=provider)
        writer = None if summary_settings is None else OpenAIChatModel(
            "fake-model", provider=provider, settings=summary_settings)  # type: ignore[arg-type]
        cm = ContextManager(window=WINDOW, event_handler=events.append, summary_model=writer,
                            settings=CompactionSettings(compaction_records=False))
        agent = Agent(model, capabilities=[cm], **agent_options)

        @agent.tool_plain
        def read(page: int) -> str:
            """Read a page."""
            return page_text(page)

        result = await agent.run("Read every page.", usage_limits=UsageLimits(request_limit=200))
    return Run(result, cm, server, events)
