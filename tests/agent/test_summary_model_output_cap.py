"""The terminal's summary requests carry their own output cap. A `summary_model` that writes less
than the main model (deepseek-chat writes 8K where deepseek-reasoner writes 64K) was asked for what
the window left, up to the main model's 64K: the provider refuses such a request. A partial
/compact (`--up-to N`) had no cap of its own at all: the request went out with the main request's
settings, sized for answers, or none."""

from __future__ import annotations

from pathlib import Path

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from compact_agent.models import REGISTRY
from tests.e2e.scripted import is_summary_request
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

WINDOW = 100_000


def answer(req: ChatRequest) -> Reply:
    if is_summary_request(req):
        return Reply.text("<summary>1. Primary Request and Intent: the questions so far.</summary>")
    return Reply.text("ok " * 1_500)


def cap(req: ChatRequest) -> int:
    return int(req.body.get("max_completion_tokens") or req.body.get("max_tokens") or 0)


async def run(tmp_path: Path, summary_model: str | None) -> list[ChatRequest]:
    """Four turns, a whole /compact, then a partial one of what came after it; the summary requests."""
    cwd = tmp_path / "project"
    cwd.mkdir()
    with FakeOpenAIServer(answer, model="deepseek-reasoner", writes_at_most={"deepseek-chat": 8_192}) as server:
        s = AgentSession(SessionOptions(cwd=cwd, model="deepseek-reasoner", base_url=server.base_url, api_key="k",
                                        context_window=WINDOW, permission_mode="yes", home=tmp_path / "home",
                                        settings=Settings(summary_model=summary_model, memory_enabled=False)))
        try:
            for k in range(4):
                await s.run_turn(f"question {k}")
            await s.compact()
            for k in range(4, 8):
                await s.run_turn(f"question {k}")
            await s.compact(pivot=3, direction="up_to")
        finally:
            s.close()
    return [r for r in server.requests if is_summary_request(r)]


async def test_a_summary_model_is_asked_for_no_more_than_it_writes(tmp_path: Path) -> None:
    whole, partial = await run(tmp_path, "deepseek-chat")
    assert REGISTRY["deepseek-chat"].max_output == 8_192 < REGISTRY["deepseek-reasoner"].max_output
    assert cap(whole) == cap(partial) == 8_192  # the window would leave far more


async def test_a_partial_compact_has_the_output_cap_a_whole_one_has(tmp_path: Path) -> None:
    whole, partial = await run(tmp_path, None)
    assert cap(whole) > 8_192 and cap(partial) > 8_192  # the main model writes up to 25K here (a quarter of the window)
    assert partial.prompt_tokens + cap(partial) <= WINDOW
