"""The compaction that follows a refusal starts from the size the refusal named: 'the server refused
a request of 8,613 tokens' was followed by 'compacted (reactive, …): 8,645 → 3,285 tokens', our
estimate of the same request in place of the server's count of it."""

from __future__ import annotations

import re

from tests.e2e.conftest import Cli
from tests.e2e.scripted import FileTaskAgent, make_project, task_text
from tests.fakes.openai_server import FakeOpenAIServer

N = 12


def test_the_reactive_compaction_line_starts_from_the_refused_size(cli: Cli) -> None:
    make_project(cli.cwd, N)
    with FakeOpenAIServer(FileTaskAgent(n=N), window=8_000, model="local") as server:
        run = cli("-p", task_text(N), "--context-window", "64k", "-y", "--verbose",
                  "-m", "local", "--base-url", server.base_url, "--api-key", "k")
    assert run.code == 0, run.stderr
    refused = re.findall(r"the server at \S+ refused a request whose prompt was ([\d,]+) tokens", run.stderr)
    compacted = re.findall(r"compacted \(reactive, [^)]*\): ([\d,]+) → ([\d,]+) tokens", run.stderr)
    assert len(refused) == 1 and len(compacted) == 1, run.stderr
    assert compacted[0][0] == refused[0], run.stderr
