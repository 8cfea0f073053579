"""The price of a summary request follows what its prefix really reads from the provider's cache.
It was always priced as the run's cached prefix, which a `summary_model` of its own never reads (a
provider's cache is its model's): each of its summaries sent the whole history at the miss price
while the schedule counted it at the hit price, a tenth of that on DeepSeek, and compacted as if
compactions were that cheap. The schedule now counts the summaries' cache reads, once the run's own
requests show that the provider reports them, and a restart keeps the count."""

from __future__ import annotations

from typing import Any

from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.usage import UsageLimits

from compact_agent.context import CompactionSettings, ContextManager
from compact_agent.context.saved_state import LEARNED
from tests.fakes.openai_server import FakeOpenAIServer

from .pages_agent import WINDOW, page_text, reading


async def run(summary_model: str | None) -> ContextManager:
    with FakeOpenAIServer(reading("<summary>Pages read so far.</summary>"), window=WINDOW, model="fake-model",
                          writes_at_most={"fake-summarizer": 4_000}) as server:
        provider = OpenAIProvider(base_url=server.base_url, api_key="k")
        writer = None if summary_model is None else OpenAIChatModel(summary_model, provider=provider)
        cm = ContextManager(window=WINDOW, summary_model=writer, settings=CompactionSettings(compaction_records=False))
        agent: Agent[None, str] = Agent(OpenAIChatModel("fake-model", provider=provider), capabilities=[cm])

        @agent.tool_plain
        def read(page: int) -> str:
            """Read a page."""
            return page_text(page)

        result = await agent.run("Read every page.", usage_limits=UsageLimits(request_limit=200))
    assert result.output == "done" and len(cm.compactions) >= 2
    return cm


async def test_a_summary_model_of_its_own_is_priced_at_the_miss_price() -> None:
    shared, own = await run(None), await run("fake-summarizer")
    assert shared.schedule.caches_reported and own.schedule.caches_reported
    assert shared.schedule.summary_hits > 0.9  # the run's model reads the prefix its requests cached
    assert own.schedule.summary_hits < 0.1  # another model's cache holds none of it
    saved: Any = own.layer_state()[LEARNED]["summary_cache"]
    assert saved == [own.schedule.summary_sent, own.schedule.summary_cached]
    resumed = ContextManager(window=WINDOW)
    resumed.load_layer_state(own.layer_state())
    assert resumed.schedule.summary_hits == own.schedule.summary_hits and resumed.schedule.caches_reported
