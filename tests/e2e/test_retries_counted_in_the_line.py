"""A failure the provider keeps answering is said with how often the request was tried, as the
timeout's line says it: 'after 2 retries', or 'tried once with max_retries = 0' where no retry was
let. The line said 'on every retry' (or 'still was after retries') with `max_retries = 0` too."""

from __future__ import annotations

import pytest
from pydantic_ai import Agent

from compact_agent.error_text import describe_error
from compact_agent.models import build_model
from tests.fakes.openai_server import FakeOpenAIServer, Reply


@pytest.mark.parametrize(("status", "retries", "said"), [
    (503, 0, "the provider failed (HTTP 503), tried once with max_retries = 0: down;"),
    (503, 1, "the provider failed (HTTP 503), after 1 retry: down;"),
    (429, 2, "the provider is rate-limiting requests (HTTP 429), after 2 retries: down;"),
    (409, 1, "the provider answered HTTP 409, after 1 retry: down;"),
])
async def test_the_line_says_how_often_the_request_was_tried(status: int, retries: int, said: str) -> None:
    with FakeOpenAIServer(lambda req: Reply.error(status, {"error": {"message": "down"}},
                                                  headers={"retry-after-ms": "1"}), api_key="k") as server:
        model = build_model("fake-model", base_url=server.base_url, api_key="k", max_retries=retries)
        with pytest.raises(Exception) as e:
            await Agent(model).run("hi")
        assert len(server.requests) == len(server.rejected) == retries + 1
    assert describe_error(e.value).startswith(said), describe_error(e.value)
