"""A provider's HTTP error that ends a compaction reaches its `compact` / `failed` event (and the
warning logged without a handler) in words: the status and the server's message. It was
pydantic-ai's rendering, `status_code: 400, model_name: fake-model, body: {'message': "This
model's maximum ...", 'type': ...}`: a Python dict, cut at 300 characters."""

from __future__ import annotations

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from compact_agent.context import CompactionSettings, ContextManager, Event, WindowTooSmallError
from compact_agent.context.plumbing.events import one_line
from tests.fakes import ChatRequest, FakeOpenAIServer, Fault, Reply
from tests.fakes._wire import error_body


def answer(req: ChatRequest) -> Reply:
    return Reply.text("ok")


def refuse_summaries(req: ChatRequest, attempt: int) -> Fault | None:
    """A server whose window is smaller than it said, for the summary request only."""
    if "<summary>" not in req.last_user_text():
        return None
    return Fault.http(400, error_body("This model's maximum context length is 16000 tokens. However, you requested "
                                      "17000 tokens. Please reduce the length of the messages.",
                                      type="invalid_request_error", code="context_length_exceeded"))


async def test_a_summary_request_the_provider_refused_says_why_in_words() -> None:
    with FakeOpenAIServer(answer, window=16_000, faults=refuse_summaries) as server:
        events: list[Event] = []
        cm = ContextManager(window=16_000, max_output=2_000, event_handler=events.append,
                            settings=CompactionSettings(compaction_records=False))
        model = OpenAIChatModel("fake-model", provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
        agent: Agent[None, str] = Agent(model, capabilities=[cm])
        async with agent:
            with pytest.raises(WindowTooSmallError):  # a prompt of 75K tokens, and no summary of it is written
                await agent.run("data: " + "word " * 60_000)
    [failed] = [e for e in events if e.failed]
    assert failed.error is not None and failed.error.startswith(
        "HTTP 400: This model's maximum context length is 16000 tokens. However, you requested")
    assert "{" not in failed.error and "status_code" not in failed.error


@pytest.mark.parametrize(("body", "said"), [
    ({"error": {"message": "nested words", "code": "x"}}, "HTTP 400: nested words"),
    ("plain words\nsecond line", "HTTP 400: plain words"),
    (None, "HTTP 400"),
    ([1, 2], "HTTP 400"),
])
def test_each_form_of_an_http_errors_body(body: object, said: str) -> None:
    assert one_line(ModelHTTPError(400, "m", body)) == said
