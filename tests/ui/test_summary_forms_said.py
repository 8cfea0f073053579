"""A failed summary request is sent in two forms (the conversation's own messages, then the
conversation as text): `--verbose` said `retry 1 of 2`, `retry 2 of 2` twice with nothing telling
them apart, and the line of the /compact that failed said `after 2 retries` where six requests had
failed. Each wait now names its form, and the line says the second form failed too, and how many
requests were made in all."""

from __future__ import annotations

import pytest
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from compact_agent import retry_notice
from compact_agent.context.compaction.summarizer import SharedPrefixSummarizer
from compact_agent.models import build_model
from compact_agent.ui.compact_failure import compact_failed
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def down(req) -> Reply:
    return Reply.error(500, {"error": {"message": "summary backend down", "type": "server_error"}},
                       {"retry-after-ms": "1"})


async def test_each_wait_names_its_form_and_the_line_counts_both() -> None:
    heard: list[str] = []
    history = [ModelRequest(parts=[UserPromptPart("fix the parser")]), ModelResponse(parts=[TextPart("done")])]
    with FakeOpenAIServer(down) as server:
        summarize = SharedPrefixSummarizer(build_model("fake-model", base_url=server.base_url, api_key="k"))
        with retry_notice.telling(heard.append), pytest.raises(Exception) as failed:
            await summarize(history, "Summarise the conversation.")
        sent = len(server.requests)
    wait = "the server answered HTTP 500 (internal server error): sending it again in a moment"
    assert heard == [f"the summary request: {wait} (retry 1 of 2)", f"the summary request: {wait} (retry 2 of 2)",
                     f"the summary request as text (its second form): {wait} (retry 1 of 2)",
                     f"the summary request as text (its second form): {wait} (retry 2 of 2)"], heard
    line = str(compact_failed(failed.value, "/compact"))
    assert sent == 6
    assert line == ("not compacted: the summary request failed: the provider failed (HTTP 500), after 2 retries: "
                    "summary backend down; sent again as text (its second form), it failed the same way "
                    "(6 requests in all); nothing was changed; /compact again to retry"), line

