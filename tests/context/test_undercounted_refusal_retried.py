"""A request the server counts over the window, where our estimate had it under, is sent again
shrunk to the count the refusal taught, also when no compaction can help.

The first request of a run worth calibrating by is the one that tells the tokenizer: six pages read
at once, estimated at 3,502 tokens of a 4,096-token window, counted 4,706 by a denser tokenizer.
The reactive compaction could not help (the pages are the newest round: it would keep them all) and
the run ended on the provider's refusal, where the refusal's own count had taught the calibration
enough to shrink the request under the window."""

from __future__ import annotations

from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.usage import UsageLimits

from compact_agent.context import ContextManager, Event
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, tool_results

WINDOW = 4_096


async def test_a_refusal_counting_more_than_the_estimate_is_retried_shrunk_to_fit() -> None:
    def answer(req: ChatRequest) -> Reply:
        if "<summary>" in req.last_user_text():
            return Reply.text("<summary>Pages read.</summary>")
        return Reply.text("done") if tool_results(req) else Reply.tools([("page", {"number": n}) for n in range(6)])

    events: list[Event] = []
    with FakeOpenAIServer(answer, window=WINDOW, chars_per_token=3.0) as server:
        model = OpenAIChatModel("fake-model", provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
        agent = Agent(model, capabilities=[ContextManager(window=WINDOW, event_handler=events.append)])

        @agent.tool_plain
        def page(number: int) -> str:
            """Read a page."""
            return f"<page {number}> " + "lorem ipsum " * 300
        result = await agent.run("Read the pages.", usage_limits=UsageLimits(request_limit=10))
    assert result.output == "done"
    assert [r.index for r, _, _ in server.rejected] == [1]  # the pages' request, once
    refused, again = server.requests[1], server.requests[2]
    assert refused.prompt_tokens > WINDOW >= again.prompt_tokens
    assert len(tool_results(again)) == 6  # every page's result went again, shrunk
    assert any(e.layer == "compact" and e.action == "failed" for e in events)  # no compaction could help
