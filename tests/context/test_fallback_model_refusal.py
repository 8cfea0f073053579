"""A `FallbackModel` whose fallback refuses a request as too long: compacted and sent again, its
window learned.

When every model of pydantic-ai's `FallbackModel` fails, the run's request raises a
`FallbackExceptionGroup` holding each model's error. A primary that answered 503 now and then, and a
fallback with a smaller window than the one the manager was given, ended the run at the fallback's
first refusal: "All models from FallbackModel failed (2 sub-exceptions)", no compaction, no window
learned, since the reactive compaction only knew a refusal standing alone. The refusal for length
inside the group is now read as one (`plumbing/overflow.as_overflow`): the request is compacted and
sent again, and the refusing model's limit is learned for the `FallbackModel` the run's requests go
to (any of its models may answer the next, so the smallest limit a refusal named holds, as pydantic-ai's
`FallbackModel.context_window` is the smallest of its models').
"""

from __future__ import annotations

import asyncio

import pytest
from openai import AsyncOpenAI
from pydantic_ai import Agent
from pydantic_ai.exceptions import FallbackExceptionGroup, ModelContextWindowExceededError, ModelHTTPError
from pydantic_ai.models.fallback import FallbackModel
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.usage import UsageLimits

from compact_agent.context import CompactionSettings, ContextManager, Event
from compact_agent.context.plumbing.overflow import as_overflow, figures, refusal_text
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Fault, Reply, tool_results

PAGES = 25


def responder(req: ChatRequest) -> Reply:
    """Reads the pages one by one (the next after the highest read), then answers; summarises when asked."""
    if "<summary>" in req.last_user_text():
        return Reply.text("<summary>Pages read so far, in order.</summary>")
    read = [int(str(r["content"]).split(":")[0].split()[-1]) for r in tool_results(req)
            if str(r.get("content", "")).startswith("page")]
    last = max(read, default=0)
    return Reply.text("all read") if last >= PAGES else Reply.tools([("read", {"page": last + 1})])


def model(server: FakeOpenAIServer) -> OpenAIChatModel:
    client = AsyncOpenAI(base_url=server.base_url, api_key="k", max_retries=0)  # a 503 is the server's answer
    return OpenAIChatModel(server.model, provider=OpenAIProvider(openai_client=client))


async def read_pages(records: bool, fallback_window: int, busy_every: int = 3) -> tuple[
        str, list[Event], ContextManager, FakeOpenAIServer, FakeOpenAIServer]:
    sent = {"n": 0}

    def every_third(req: ChatRequest, attempt: int) -> Fault | None:
        sent["n"] += 1
        return Fault.http(503) if sent["n"] % busy_every == 0 else None

    events: list[Event] = []
    with FakeOpenAIServer(responder, window=8_000, faults=every_third) as primary, \
            FakeOpenAIServer(responder, window=fallback_window, model="small-model") as fallback:
        cm = ContextManager(window=8_000, event_handler=events.append,
                            settings=CompactionSettings(compaction_records=records))
        agent = Agent(FallbackModel(model(primary), model(fallback)), capabilities=[cm])

        @agent.tool_plain
        def read(page: int) -> str:
            """Read a page."""
            return f"page {page}: " + " ".join(f"w{page}-{i}" for i in range(250))

        result = await agent.run("Read the 25 pages.", usage_limits=UsageLimits(request_limit=200))
    return result.output, events, cm, primary, fallback


@pytest.mark.parametrize("records", [True, False])
def test_the_fallback_s_refusal_is_compacted_and_its_window_learned(records: bool) -> None:
    output, events, cm, primary, fallback = asyncio.run(read_pages(records, 3_000))
    assert output == "all read"
    refused = [status for _, status, _ in fallback.rejected]
    assert refused == [400]  # once: every later request fits the window it taught
    assert [s for _, s, _ in primary.rejected] and {s for _, s, _ in primary.rejected} == {503}
    learned = [e for e in events if e.layer == "window" and e.action == "learned"]
    assert [(e.tokens_after, e.detail["given"], e.trigger) for e in learned] == [(3_000, 8_000, "reactive")]
    assert cm.window_learned is not None and cm.window_learned.window == 3_000
    compactions = [e for e in events if e.layer == "compact"]
    assert compactions[0].trigger == "reactive" and not compactions[0].failed
    assert compactions[0].tokens_before == learned[0].tokens_before  # the refused prompt, as the server counted it
    assert all(not e.failed for e in compactions)


def test_a_summary_request_the_fallback_refuses_as_too_long_teaches_the_window() -> None:
    """The summary request goes to the FallbackModel too: with the primary busy and the fallback
    refusing it for length, the compaction failed with the whole group ("All models from
    FallbackModel failed"), three times in a row, until a main request's refusal taught the window;
    the refusal inside the group is read as one there too, and the summary made within it."""
    output, events, cm, primary, fallback = asyncio.run(read_pages(False, 5_000, busy_every=2))
    assert output == "all read"
    assert [e.error for e in events if e.layer == "compact" and e.failed] == []
    assert cm.window_learned is not None and cm.window_learned.window == 5_000


def overflow(model_name: str, limit: int, used: int) -> ModelHTTPError:
    """A refusal for length, as a server that words it as OpenAI does answers it (a plain HTTP 400)."""
    return ModelHTTPError(400, model_name, body={"message": f"This model's maximum context length is {limit} "
                                                            f"tokens. However, your messages resulted in {used} tokens."})


def test_a_group_s_refusal_for_length_is_read_as_one_naming_the_model_that_refused() -> None:
    busy = ModelHTTPError(503, "big-model", body={"message": "overloaded"})
    group = FallbackExceptionGroup("All models from FallbackModel failed", [busy, overflow("small-model", 3_000, 3_479)])
    found = as_overflow(group)
    assert isinstance(found, ModelContextWindowExceededError)
    assert found.model_name == "small-model" and figures(refusal_text(found)) == (3_479, 3_000)
    # Of two refusals, the smaller limit: the window the compacted request must fit for both.
    both = FallbackExceptionGroup("All models from FallbackModel failed",
                                  [overflow("big-model", 8_000, 9_000), overflow("small-model", 3_000, 9_000)])
    found = as_overflow(both)
    assert found is not None and found.model_name == "small-model"
    nested = FallbackExceptionGroup("outer", [busy, FallbackExceptionGroup("inner", [overflow("tiny", 900, 950)])])
    found = as_overflow(nested)
    assert found is not None and found.model_name == "tiny"
    assert as_overflow(FallbackExceptionGroup("All models from FallbackModel failed", [busy, busy])) is None
