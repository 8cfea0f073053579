"""/status says where its context figure comes from, as /context's heading does: the provider's
count of the last request and its answer, or an estimate (after a compaction, before the next
request reports). '3,113' beside /compact's '2,995 → 1,311' read as two sizes of one context."""

from __future__ import annotations

import re

from tests.e2e.conftest import Cli
from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .scripted import is_summary_request


def answer(req) -> Reply:
    return Reply.text("<summary>the talk so far</summary>" if is_summary_request(req) else "answer " * 300)


def test_status_names_the_source_of_its_context_figure(cli: Cli) -> None:
    with FakeOpenAIServer(answer) as server:
        at = ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")
        for i in range(3):
            assert cli(*(["-c"] if i else []), "-p", f"question {i} " + "q " * 300, *at).code == 0
        reported = cli("-c", "-p", "/status", *at)
        assert cli("-c", "-p", "/compact", *at).code == 0
        estimated = cli("-c", "-p", "/status", *at)
        base_url = server.base_url
    line = re.compile(r"context\s+[\d,]+ / threshold [\d,]+ / window [\d,]+ tokens, (provider-reported|estimated)")
    assert (m := line.search(reported.stdout)) and m[1] == "provider-reported", reported.stdout
    assert (m := line.search(estimated.stdout)) and m[1] == "estimated", estimated.stdout
    # A model behind --base-url is the endpoint's, not OpenAI's.
    said = " ".join(reported.stdout.split())
    assert "fake-model (OpenAI-compatible)" in said and f"endpoint {base_url}" in said, said
    assert "(openai)" not in said
