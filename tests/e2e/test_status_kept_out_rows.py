"""/status's table of what the layers keep out of the context counts each tool result once, under
the layer /context shows it by. Six results spilled to files, three of them folded into a digest
since: the table said 'large tool results moved to files 7,278' (all six spills) beside 'old rounds
folded into a digest 1,827' (the three previews), while /context showed three previews. The folded
results now count whole under the digest; the two rows still add up to what the layers freed."""

from __future__ import annotations

import re

from tests.e2e.conftest import Cli
from tests.e2e.scripted import FileTaskAgent, make_project, task_text
from tests.fakes.openai_server import FakeOpenAIServer

N = 6
FREED = re.compile(r"context: (.+?) \((\d+) (?:tool )?results?(?: among them)?\), freed ([\d,]+) tokens")


def number(text: str) -> int:
    return int(text.replace(",", ""))


def row(table: str, words: str) -> int:
    found = re.search(re.escape(words) + r"\D*([\d,]+)", table)
    assert found, table
    return number(found[1])


def test_a_spilled_result_folded_into_the_digest_counts_once_under_the_digest(cli: Cli) -> None:
    make_project(cli.cwd, N)
    with FakeOpenAIServer(FileTaskAgent(n=N), window=8_000, model="local") as server:
        at = ("-m", "local", "--base-url", server.base_url, "--api-key", "k", "--context-window", "8k")
        run = cli("-p", task_text(N), "-y", "--verbose", *at)
        assert run.code == 0, run.stderr
        status = cli("-c", "-p", "/status", *at)
        context = cli("-c", "-p", "/context", *at)
    said = [(what, int(n), number(freed)) for what, n, freed in FREED.findall(run.stderr)]
    spills = [freed for what, n, freed in said if what.startswith("large tool results moved to files")]
    folds = [(n, freed) for what, n, freed in said if what.startswith("old rounds folded into a digest")]
    assert len(spills) == N and len(set(spills)) == 1 and folds, run.stderr  # the case: spilled, then folded
    shown = re.search(r"tool results: spilled \(preview\) \((\d+)\)", context.stdout)
    assert shown and 0 < int(shown[1]) < N, context.stdout
    moved = row(status.stdout, "large tool results moved to files (a preview stays)")
    digest = row(status.stdout, "old rounds folded into a digest")
    assert moved == int(shown[1]) * spills[0], status.stdout  # the previews /context shows, not all six
    assert moved + digest == sum(spills) + sum(freed for _, freed in folds), status.stdout  # each token once
