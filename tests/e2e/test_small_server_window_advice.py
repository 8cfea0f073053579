"""A server's window learned under the start-up minimum worked, but the line that said it advised
giving it at start ('give --context-window 4096 … to start there'), and that was refused there ('the
minimum is 5,120'): 4,096, a common local default, works, and is accepted at start now; a window
learned under the minimum is not advised, the server's context is what to raise."""

from __future__ import annotations

from compact_agent.agent.run.stream_events import WindowChoice, window_line
from compact_agent.context.plumbing.events import Event
from tests.e2e.conftest import Cli
from tests.e2e.scripted import FileTaskAgent, make_project, task_text
from tests.fakes.openai_server import FakeOpenAIServer

N = 8


def test_the_window_a_4096_server_teaches_is_advised_and_then_accepted_at_start(cli: Cli) -> None:
    total = make_project(cli.cwd, N, filler_chars=1_600)
    with FakeOpenAIServer(FileTaskAgent(n=N), window=4_096, model="local", overflow="llama.cpp") as server:
        at = ("-m", "local", "--base-url", server.base_url, "--api-key", "k")
        first = cli("-p", task_text(N), "--context-window", "8k", "-y", *at)
        assert first.code == 0, first.stderr
        [said] = [line for line in first.stderr.splitlines() if "its window is 4,096" in line]
        assert said.endswith("(give --context-window 4096, or context_window = 4096 in config.toml, to start there)")
        refused = len(server.rejected)

        again = cli("-p", task_text(N), "--context-window", "4096", "-y", *at,
                    env={"COMPACT_AGENT_HOME": str(cli.home / "fresh")})  # nothing remembered: the flag alone
        assert again.code == 0, again.stderr
        assert f"FINAL SUM: {total}" in again.stdout
        assert len(server.rejected) == refused  # within the window from the first request: none refused


def test_a_window_learned_under_the_minimum_is_not_advised() -> None:
    learned = Event("window", "learned", 2_100, 2_048, trigger="reactive", detail={"given": 8_000})
    line = window_line(learned, WindowChoice("local", given=True, server="http://127.0.0.1:8080/v1", minimum=4_096))
    assert "--context-window" not in line and "context_window" not in line, line
    assert line.endswith("working within 2,048 from now on (a window under 4,096 is too small to start in: "
                         "start that server with a larger context to work in more)"), line
