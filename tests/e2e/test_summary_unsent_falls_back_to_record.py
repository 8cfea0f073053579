"""A small local server's window full: the request is refused as too long, and the reactive
compaction's summary request (that request plus the instruction) is longer still, so the server
refuses it too, or the agent does not send it. The compaction then fell through: the run ended
with "too long for the server's window … even after compaction" when no compaction had been made,
and in a session whose summary request could never fit, every later `-c` failed the same way. A
record of the steps written without a model needs no request: it stands in, and the run finishes."""

from __future__ import annotations

import dataclasses

import pytest

from tests.e2e.conftest import Cli
from tests.e2e.scripted import FileTaskAgent, make_project, task_text
from tests.fakes.openai_server import FakeOpenAIServer

N = 6
FILLER = 12_000


class NoUsageServer(FakeOpenAIServer):
    """A local server that reports no usage (vLLM without `stream_options`' usage, say): the agent
    has only its own estimate of how its tokens count on this server's tokenizer."""

    def serve_post(self, path, raw, headers):  # type: ignore[no-untyped-def]
        out = super().serve_post(path, raw, headers)
        if out.status == 200:
            out = dataclasses.replace(out, include_usage=False)
            if isinstance(out.payload, dict):
                out.payload.pop("usage", None)
        return out


@pytest.mark.parametrize("chars_per_token", [2.5, 2.0])
def test_a_summary_that_cannot_fit_gives_way_to_a_record(cli: Cli, chars_per_token: float) -> None:
    total = make_project(cli.cwd, N, filler_chars=FILLER)
    agent = FileTaskAgent(n=N)
    with NoUsageServer(agent, window=4096, model="local", overflow="vllm",
                          chars_per_token=chars_per_token) as server:
        at = ("--context-window", "4096", "-m", "local", "--base-url", server.base_url, "--api-key", "k")
        run = cli("-p", task_text(N), "-y", "--verbose", *at)
        again = cli("-c", "-p", "/compact", *at)  # by hand too: never "nothing was changed" for good
    assert run.code == 0, run.stderr
    assert f"FINAL SUM: {total}" in run.stdout
    assert "even after compaction" not in run.stderr
    assert "record written without a model" in run.stderr, run.stderr
    assert again.code == 0 and "(manual, record written without a model)" in again.stdout, again.stderr
