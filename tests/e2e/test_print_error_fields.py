"""Every result object of a JSON run has the fields docs/usage.md lists, a failed run's too: one
that failed before its session was opened (no API key, a command line that cannot be parsed) had
only `type, subtype, is_error, error, result, session_id, duration_ms`, no `num_turns`, `usage`,
`compactions` or `permission_denials`, which the errors of a run with a session have."""

from __future__ import annotations

import json

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply

SPENT = {"num_turns", "total_cost_usd", "usage", "compactions", "permission_denials"}
NOTHING = {"num_turns": 0, "total_cost_usd": 0.0, "compactions": [], "permission_denials": [],
           "usage": {"input_tokens": 0, "output_tokens": 0, "cache_read_tokens": 0, "requests": 0,
                     "summary_requests": 0, "memory_requests": 0}}


@pytest.mark.parametrize("how", ["json", "stream-json"])
def test_no_api_key(cli, how):
    res = cli("-p", "hi", "--output-format", how)
    assert res.code == 1 and "API_KEY is not set" in res.stderr
    result = json.loads(res.stdout.splitlines()[-1])
    assert result["subtype"] == "error" and result["session_id"]  # the prompt is saved: -c goes on
    assert {k: result[k] for k in SPENT} == NOTHING


def test_a_command_line_not_parsed(cli):
    res = cli("-p", "x", "--output-format", "json", "--max-turns", "x")
    assert res.code == 2 and {k: res.json()[k] for k in SPENT} == NOTHING


def test_the_same_fields_as_a_finished_run(cli):
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        done = cli("-p", "hi", "--output-format", "json", "--model", "fake-model", "--base-url", server.base_url,
                   "--api-key", "k").json()
    failed = cli("-p", "hi", "--output-format", "json").json()
    assert set(failed) == set(done) | {"error"} and set(done["usage"]) == set(failed["usage"])
