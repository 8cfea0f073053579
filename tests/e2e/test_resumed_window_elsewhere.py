"""A session that learned a server's window (8,000 below the 16,000 given) and was resumed with
`-c --context-window 16k` against another server and model stayed within 8,000, and
`config --forget-window all` did not reach the window the session kept. Now the window goes with
the server and model it was learned from: elsewhere the window given holds; there, it is worked
within and said in one line; forgotten, it is forgotten by the session too."""

from __future__ import annotations

from tests.e2e.conftest import Cli
from tests.e2e.scripted import FileTaskAgent, make_project, task_text
from tests.fakes.openai_server import FakeOpenAIServer

N = 7


def test_a_learned_window_stays_with_its_server_and_is_forgotten_with_it(cli: Cli) -> None:
    make_project(cli.cwd, N)
    with FakeOpenAIServer(FileTaskAgent(n=N), window=8_000, model="local") as small, \
            FakeOpenAIServer(FileTaskAgent(n=N), window=64_000, model="big") as large:
        at = ("--context-window", "16k", "-m", "local", "--base-url", small.base_url, "--api-key", "k")
        first = cli("-p", task_text(N), "-y", *at)
        assert first.code == 0, first.stderr
        assert "its window is 8,000, not the 16,000 given" in first.stderr

        elsewhere = cli("-c", "-p", "/status", "--context-window", "16k", "-m", "big",
                        "--base-url", large.base_url, "--api-key", "k")
        assert elsewhere.code == 0, elsewhere.stderr
        assert "/ window 16,000 tokens" in elsewhere.stdout and "learned" not in elsewhere.stdout, elsewhere.stdout
        assert "working within" not in elsewhere.stderr, elsewhere.stderr

        there = cli("-c", "-p", "/status", *at)
        assert "/ window 8,000 tokens" in there.stdout, there.stdout
        said = [line for line in there.stderr.splitlines() if "working within 8,000 tokens" in line]
        assert said == [f"compact-agent: working within 8,000 tokens, not the 16,000 given: the window "
                        f"{small.base_url} named when it refused a request for local (compact-agent config "
                        f"--forget-window {small.base_url} forgets it)"], there.stderr

        forgot = cli("config", "--forget-window", "all")
        assert forgot.code == 0 and "sessions there, new or resumed," in forgot.stdout, forgot.stdout
        for again in (cli("-c", "-p", "/status", *at), cli("-c", "-p", "/status", *at[2:])):
            assert "/ window 16,000 tokens" in again.stdout and "learned" not in again.stdout, again.stdout
            assert "working within" not in again.stderr, again.stderr
        assert len(small.rejected) == 1 and not large.rejected
