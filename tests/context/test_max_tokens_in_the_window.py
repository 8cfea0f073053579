"""The answer a request asks for (its `max_tokens`) is room the window keeps.

An OpenAI-compatible server counts a request's `max_tokens` against the window with its prompt and
refuses one whose prompt leaves less ("you requested 4,114 tokens (2,614 in the messages, 1,500 in
the completion)"). The pipeline kept its own reserve for the answer (a quarter of a small window at
most, then 1.25x the longest answer seen), so an agent with `max_tokens` above it had requests
refused as too long: each one sent over the window, then compacted and sent again."""

from __future__ import annotations

import pytest
from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.settings import ModelSettings
from pydantic_ai.usage import UsageLimits

from compact_agent.context import ContextManager, WindowTooSmallError
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

WINDOW = 4_000


def reading() -> FakeOpenAIServer:
    pages = {"n": 0}

    def answer(req: ChatRequest) -> Reply:
        if "<summary>" in req.last_user_text():
            return Reply.text("<summary>Pages read so far.</summary>")
        pages["n"] += 1
        return Reply.tools([("read", {"page": pages["n"]})]) if pages["n"] <= 20 else Reply.text("done")
    return FakeOpenAIServer(answer, window=WINDOW)


def reader(server: FakeOpenAIServer, max_tokens: int) -> Agent[None, str]:
    model = OpenAIChatModel("fake-model", provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
    agent = Agent(model, capabilities=[ContextManager(window=WINDOW)],
                  model_settings=ModelSettings(max_tokens=max_tokens))

    @agent.tool_plain
    def read(page: int) -> str:
        """Read a page."""
        return f"page {page}: " + " ".join(f"w{page}x{i}" for i in range(150))
    return agent


async def test_no_request_leaves_less_room_than_the_max_tokens_it_asks_for() -> None:
    with reading() as server:
        result = await reader(server, 1_500).run("Read every page.", usage_limits=UsageLimits(request_limit=60))
    assert result.output == "done"
    assert server.rejected == []
    asked = [r.body.get("max_tokens") or r.body.get("max_completion_tokens") or 0 for r in server.requests]
    assert all(r.prompt_tokens + n <= WINDOW for r, n in zip(server.requests, asked, strict=True))


async def test_max_tokens_that_leaves_no_room_for_the_request_is_refused_in_words() -> None:
    with reading() as server:
        with pytest.raises(WindowTooSmallError, match=r"context window is 4,000 less the 3,900 its max_tokens "
                                                      r"asks for the answer \(100\).*ask for a shorter answer"):
            await reader(server, 3_900).run("Read every page.", usage_limits=UsageLimits(request_limit=60))
    assert server.rejected == []
