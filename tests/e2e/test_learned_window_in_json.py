"""`-p --output-format json` says a window learned in the run in its result object
(`learned_window`: the window, the one it replaced, the server and model, and how the server
showed it), not only in the line on stderr: a script could not tell that later runs should give
`--context-window 8000`. Null where the run learned none."""

from __future__ import annotations

from tests.e2e.conftest import Cli
from tests.e2e.scripted import FileTaskAgent, make_project, task_text
from tests.fakes.openai_server import FakeOpenAIServer

N = 12


def test_a_window_learned_in_the_run_is_in_the_result_object(cli: Cli) -> None:
    total = make_project(cli.cwd, N)
    with FakeOpenAIServer(FileTaskAgent(n=N), window=8_000, model="local", overflow="llama.cpp") as server:
        at = ("-m", "local", "--base-url", server.base_url, "--api-key", "k", "--output-format", "json")
        first = cli("-p", task_text(N), "--context-window", "64k", "-y", *at)
        assert first.code == 0, first.stderr
        result = first.json()
        assert f"FINAL SUM: {total}" in result["result"]
        assert result["learned_window"] == {"window": 8_000, "given": 64_000, "server": server.base_url,
                                            "model": "local", "how": "refused"}, result
        again = cli("-c", "-p", "read data/file_00.txt again", "-y", *at)  # works within it: learns nothing
        assert again.code == 0, again.stderr
        assert again.json()["learned_window"] is None
