"""The answer a request asks for (its `max_tokens`) is room the window keeps.

An OpenAI-compatible server counts a request's `max_tokens` against the window with its prompt and
refuses one whose prompt leaves less ("you requested 4,114 tokens (2,614 in the messages, 1,500 in
the completion)"). The pipeline kept its own reserve for the answer (a quarter of a small window at
most, then 1.25x the longest answer seen), so an agent with `max_tokens` above it had requests
refused as too long: each one sent over the window, then compacted and sent again. The estimate's
margin is kept beside that room, not within it: a request shrunk to the window less `max_tokens`
alone went out a few tokens over, where the server's tokenizer counted more than the estimate did."""

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


def reading(rounds: list[list[tuple[int, int]]] | None = None, window: int = WINDOW,
            chars_per_token: float = 4.0) -> FakeOpenAIServer:
    """A model that reads `rounds` of (page, words) at once, then is done: by default 20 pages of 150
    words, one a step."""
    plan = rounds if rounds is not None else [[(n, 150)] for n in range(1, 21)]
    steps = {"n": 0}

    def answer(req: ChatRequest) -> Reply:
        if "<summary>" in req.last_user_text():
            return Reply.text("<summary>Pages read so far.</summary>")
        steps["n"] += 1
        if steps["n"] > len(plan):
            return Reply.text("done")
        return Reply.tools([("read", {"page": page, "words": words}) for page, words in plan[steps["n"] - 1]])
    return FakeOpenAIServer(answer, window=window, chars_per_token=chars_per_token)


def reader(server: FakeOpenAIServer, max_tokens: int, window: int = WINDOW) -> Agent[None, str]:
    model = OpenAIChatModel("fake-model", provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
    agent = Agent(model, capabilities=[ContextManager(window=window)],
                  model_settings=ModelSettings(max_tokens=max_tokens))

    @agent.tool_plain
    def read(page: int, words: int = 150) -> str:
        """Read a page."""
        return f"page {page}: " + " ".join(f"w{page}x{i}" for i in range(words))
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


async def test_a_request_shrunk_to_fit_keeps_the_estimate_margin_beside_the_max_tokens() -> None:
    """Rounds of five pages at once, more than a 4,096-token window's hard limit holds, are shrunk to
    what the window takes; the server's tokenizer counts a little more than the calibrated estimate.
    Shrunk to the window less the 500 asked alone, the fifth request went out at 3,635 tokens + 500."""
    small = [[(n, 120)] for n in range(1, 5)]  # small pages first: the calibration learns the tokenizer
    rounds = [[(10 * n + j, 300) for j in range(5)] for n in range(5, 11)]
    with reading(small + rounds, window=4_096, chars_per_token=3.5) as server:
        result = await reader(server, 500, window=4_096).run("Read every page.",
                                                             usage_limits=UsageLimits(request_limit=60))
    assert result.output == "done"
    assert server.rejected == []
    sent = [r for r in server.requests if r.body.get("max_tokens") == 500 or r.body.get("max_completion_tokens") == 500]
    assert len(sent) >= 10 and max(r.prompt_tokens for r in sent) > 3_400  # requests at the limit were made


def test_a_refusal_names_both_the_max_tokens_and_the_margin_it_keeps() -> None:
    """The room it names is what the request may take: the window less both (it named the larger alone)."""
    from compact_agent.context.plumbing.refusal import document_refusal

    line = document_refusal("a.pdf", 3_600, 0, 4_096, answer=500, margin=81)
    assert ("less the 500 its max_tokens asks for the answer and the 81 kept free for the estimate's error "
            "(3,515)") in line, line
    assert "less the 81 kept free for the estimate's error (4,015)" in document_refusal("a.pdf", 4_050, 0, 4_096,
                                                                                         margin=81)
