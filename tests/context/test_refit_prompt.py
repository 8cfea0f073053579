"""A refusal that teaches a smaller window asks the caller's `refit_prompt` for the newest prompt
(refit.py) before the reactive compaction would fold it into a record of its first few hundred
characters: through a real HTTP server that refuses in llama.cpp's words."""

from __future__ import annotations

from pydantic_ai import Agent
from pydantic_ai.messages import ModelRequest, UserPromptPart
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from compact_agent.context import ContextManager
from compact_agent.context.plumbing.stores import InMemoryStore
from compact_agent.context.wiring import Internals
from tests.fakes.openai_server import FakeOpenAIServer, Reply, message_text

QUESTION = "Which entry is the odd one out?"
PASTE = "".join(f"entry {i}: the value is {i * 7 % 1000}\n" for i in range(1_400)) + QUESTION  # ~9,500 tokens


def answer(req) -> Reply:
    said = "\n".join(message_text(m) for m in req.messages if m.get("role") == "user")
    if "<summary>" in said or "summary" in said.lower()[-2000:]:
        return Reply.text("<summary>1. Primary Request and Intent: a list.</summary>")
    return Reply.text("SAW THE QUESTION" if QUESTION in said else "NO QUESTION")


def prompts(messages) -> list[str]:
    return [p.content for m in messages if isinstance(m, ModelRequest) for p in m.parts
            if isinstance(p, UserPromptPart) and isinstance(p.content, str)]


async def run(refit) -> tuple[ContextManager, str, FakeOpenAIServer]:
    with FakeOpenAIServer(answer, window=8_000, model="local", overflow="llama.cpp") as server:
        model = OpenAIChatModel("local", provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
        cm = ContextManager.wired(Internals(refit_prompt=refit), window=32_000)
        result = await Agent(model, capabilities=[cm]).run(PASTE)
    return cm, result.output, server


async def test_the_newest_prompt_is_cut_by_the_callers_rule_and_sent_again() -> None:
    asked: list[tuple[str, int]] = []

    def ends(text: str, threshold: int) -> str:
        asked.append((text, threshold))
        return f"{text[:300]}\n[... the middle is in a file ...]\n{text[-300:]}"

    cm, output, server = await run(ends)
    assert cm.limits.window == 8_000 and asked == [(PASTE, cm.limits.threshold)]
    assert output == "SAW THE QUESTION" and len(server.rejected) == 1
    assert cm.compactions == []  # sent again with the message cut, not compacted
    store = cm.store
    assert isinstance(store, InMemoryStore)
    assert prompts(store.messages) == [asked[0][0][:300] + "\n[... the middle is in a file ...]\n" + PASTE[-300:]]
    assert [prompts(a) for a in store.archives] == [[PASTE]]  # the message as it came, archived before the rewrite


async def test_a_prompt_the_caller_leaves_is_compacted_as_before() -> None:
    cm, _, server = await run(lambda text, threshold: None)
    assert cm.limits.window == 8_000 and len(server.rejected) == 1
    assert [c.trigger for c in cm.compactions] == ["reactive"]


async def test_a_hook_that_fails_is_said_and_the_prompt_compacted() -> None:
    def broken(text: str, threshold: int) -> str:
        raise RuntimeError("disk on fire")

    events = []
    with FakeOpenAIServer(answer, window=8_000, model="local", overflow="llama.cpp") as server:
        model = OpenAIChatModel("local", provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
        cm = ContextManager.wired(Internals(refit_prompt=broken, event_sink=events.append), window=32_000)
        await Agent(model, capabilities=[cm]).run(PASTE)
    assert [(e.layer, e.action, e.detail.get("error")) for e in events if e.layer == "hook"] == [
        ("hook", "failed", "disk on fire")]
    assert [c.trigger for c in cm.compactions] == ["reactive"]
