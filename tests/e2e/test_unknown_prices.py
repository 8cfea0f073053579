"""Print mode with a model the registry does not know (a local server, its prices unknown) and with
one it knows, reading thirty 6K-character files in a 128K window.

The unknown model was priced at DeepSeek's prices and compacted at ~21K, five times in such a run,
each record keeping `read_file(...) -> ok` and dropping the contents, while the threshold was
112,500: forgetting for a saving its prices could not show. Now it compacts at the threshold only.
A known model still compacts early where its prices say it pays, and the line says why."""

from __future__ import annotations

import re

from tests.e2e.conftest import Cli
from tests.e2e.scripted import FileTaskAgent, make_project, task_text
from tests.fakes.openai_server import FakeOpenAIServer

N = 30


def run(cli: Cli, model: str) -> tuple[int, str, str]:
    total = make_project(cli.cwd, N)
    with FakeOpenAIServer(FileTaskAgent(n=N), window=128_000, model=model) as server:
        r = cli("-p", task_text(N), "--context-window", "128k", "--verbose", "-y", "-m", model,
                "--base-url", server.base_url, "--api-key", "k")
        assert not server.rejected
    assert r.code == 0, r.stderr
    return total, r.stdout, r.stderr


def test_a_model_without_known_prices_does_not_compact_before_the_threshold(cli: Cli) -> None:
    total, out, err = run(cli, "some-local-model")
    assert f"FINAL SUM: {total}" in out
    assert "compacted" not in err, err


def test_an_early_compaction_says_why(cli: Cli) -> None:
    total, out, err = run(cli, "deepseek-chat")
    assert f"FINAL SUM: {total}" in out
    said = err.splitlines()
    lines = [line for line in said if "compacted" in line]
    assert lines, err
    for line in lines:
        assert re.fullmatch(r"compacted early \(auto, (record written without a model|full)\): "
                            r"[\d,]+ → [\d,]+ tokens, cheaper than carrying [\d,]+ more to the 112,500 threshold",
                            line), line
        under = said[said.index(line) + 1]  # where the conversation before it went, as /compact says
        assert re.fullmatch(r"full transcript archived at /.+\.jsonl", under), under
