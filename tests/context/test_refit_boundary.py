"""The rewrite of a prompt cut to a window a refusal taught (refit.py) is said to be one in the
store's boundary: trigger `input_cut` and the window it was cut to. It was recorded as an edited
history ('history_changed', 0 → 0 tokens), which /history showed as a compaction of nothing."""

from __future__ import annotations

from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from compact_agent.context import ContextManager
from compact_agent.context.plumbing.stores import InMemoryStore
from compact_agent.context.refit import INPUT_CUT
from compact_agent.context.wiring import Internals
from tests.context.test_refit_prompt import PASTE, answer
from tests.fakes.openai_server import FakeOpenAIServer


def ends(text: str, threshold: int) -> str:
    return f"{text[:300]}\n[... the middle is in a file ...]\n{text[-300:]}"


async def test_the_rewrite_of_a_cut_prompt_is_named_as_such() -> None:
    with FakeOpenAIServer(answer, window=8_000, model="local", overflow="llama.cpp") as server:
        model = OpenAIChatModel("local", provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
        cm = ContextManager.wired(Internals(refit_prompt=ends), window=32_000)
        agent = Agent(model, capabilities=[cm])
        first = await agent.run(PASTE)
        # A later change of the history (an answer regenerated) is an edited history again.
        await agent.run("and now?", message_history=first.all_messages()[:-1])
    store = cm.store
    assert isinstance(store, InMemoryStore)
    assert [(b["trigger"], b["strategy"], b.get("extra")) for b in store.boundaries] == [
        (INPUT_CUT, "replace", {"window": 8_000}), ("history_changed", "replace", None)]
    assert cm.compactions == []
