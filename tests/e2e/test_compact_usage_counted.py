"""`-c -p /compact --output-format json`: `total_cost_usd` priced the summary request while `usage`
said 0 input and 0 output tokens. `usage` counts the tokens the cost is computed from: the summary
request's too (its count apart, in `summary_requests`; `requests` stays the turns')."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import Cli
from tests.e2e.scripted import is_summary_request
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def replies(req) -> Reply:
    return Reply.text("<summary>the work so far</summary>" if is_summary_request(req) else "ok " * 400)


def test_a_compactions_usage_holds_what_its_cost_prices(cli: Cli) -> None:
    args = ("--model", "fake-model", "--api-key", "k", "--prices", "1,0.1,2")
    with FakeOpenAIServer(replies) as server:
        assert cli("-p", "hello", "--base-url", server.base_url, *args).code == 0
        for _ in range(3):
            assert cli("-c", "-p", "tell me more", "--base-url", server.base_url, *args).code == 0
        asked = len(server.requests)
        r = cli("-c", "-p", "/compact", "--base-url", server.base_url, *args, "--output-format", "json")
        [summary] = [q for q in server.requests[asked:] if is_summary_request(q)]
    assert r.code == 0, r.stderr
    out = r.json()
    assert out["compactions"] and out["usage"]["requests"] == 0 and out["usage"]["summary_requests"] == 1, out
    usage = out["usage"]
    assert usage["input_tokens"] == summary.prompt_tokens and usage["output_tokens"] > 0, out
    miss = usage["input_tokens"] - usage["cache_read_tokens"]
    priced = (miss * 1 + usage["cache_read_tokens"] * 0.1 + usage["output_tokens"] * 2) / 1e6
    assert out["total_cost_usd"] == pytest.approx(priced, abs=2e-6), out
