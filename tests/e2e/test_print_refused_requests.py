"""A request the provider refused (a prompt over the server's window, then compacted and sent again)
was sent, yet `-p`'s result counted it nowhere: `num_turns` and `usage.requests` count the requests
answered, and a refusal reports no usage. The result says them apart, as `refused_requests`, in
json and in stream-json's result line."""

from __future__ import annotations

import json

import pytest

from tests.e2e.conftest import Cli
from tests.e2e.scripted import FileTaskAgent, make_project, task_text
from tests.fakes.openai_server import FakeOpenAIServer, Reply

N = 12


def summary_request(req) -> bool:
    return "<analysis>" in json.dumps(req.body) or "summar" in str(req.messages[-1:]).lower()


@pytest.mark.parametrize("fmt", ["json", "stream-json"])
def test_a_refused_prompt_is_counted_apart_from_the_turns(cli: Cli, fmt: str) -> None:
    make_project(cli.cwd, N)
    with FakeOpenAIServer(FileTaskAgent(n=N), window=8_000, model="local") as server:
        run = cli("-p", task_text(N), "--context-window", "64k", "-y", "--output-format", fmt,
                  "-m", "local", "--base-url", server.base_url, "--api-key", "k")
    assert run.code == 0, run.stderr
    result = json.loads(run.stdout.strip().splitlines()[-1])
    refused = [req for req, status, _ in server.rejected if status == 400 and not summary_request(req)]
    answered = len(server.requests) - len(server.rejected)
    assert refused, "the scenario has the server refuse a prompt over its window"
    assert result["refused_requests"] == len(refused), (result, len(refused))
    assert result["num_turns"] + result["usage"]["summary_requests"] + result["usage"]["memory_requests"] \
        == answered
    assert result["num_turns"] == result["usage"]["requests"]


def test_a_run_with_no_refusal_says_none(cli: Cli) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("fine"), model="local") as server:
        run = cli("-p", "hi", "--output-format", "json", "-m", "local", "--base-url", server.base_url,
                  "--api-key", "k")
    assert run.code == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["refused_requests"] == 0 and result["num_turns"] == 1
