"""The line said when a server's window turns out smaller says how to start there next time:
'(give --context-window 8000, or context_window = 8000 in config.toml, to start there)', for a
window given on the command line or assumed; not for one a resumed session remembered, which keeps
the window it learned."""

from __future__ import annotations

from compact_agent.agent.run.stream_events import WindowChoice, window_line
from compact_agent.context.plumbing.events import Event
from tests.e2e.conftest import Cli
from tests.e2e.scripted import FileTaskAgent, make_project, task_text
from tests.fakes.openai_server import FakeOpenAIServer

N = 12
HINT = "working within 8,000 from now on (give --context-window 8000, or context_window = 8000 in config.toml, to start there)"


def test_a_window_given_or_assumed_says_how_to_start_there(cli: Cli) -> None:
    make_project(cli.cwd, N)
    with FakeOpenAIServer(FileTaskAgent(n=N), window=8_000, model="local", overflow="llama.cpp") as server:
        at = ("-m", "local", "--base-url", server.base_url, "--api-key", "k")
        given = cli("-p", task_text(N), "-y", "--context-window", "64k", *at)
        assumed = cli("-p", task_text(N), "-y", *at, env={"COMPACT_AGENT_HOME": str(cli.home / "other")})
    for run, was in ((given, "not the 64,000 given"), (assumed, "not the 32,768 assumed")):
        assert run.code == 0, run.stderr
        said = [line for line in run.stderr.splitlines() if "its window is 8,000" in line]
        assert len(said) == 1 and said[0].endswith(f"{was}; {HINT}"), run.stderr


def test_a_window_the_resumed_session_remembered_says_no_more(cli: Cli) -> None:
    make_project(cli.cwd, N)
    with FakeOpenAIServer(FileTaskAgent(n=N), window=100_000, model="local", overflow="llama.cpp") as server:
        at = ("-m", "local", "--base-url", server.base_url, "--api-key", "k")
        assert cli("-p", "hello", "-y", "--context-window", "64k", *at).code == 0  # the session remembers 64k
        server.window = 8_000  # the server restarted with a smaller context
        resumed = cli("-c", "-p", task_text(N), "-y", *at)
    assert resumed.code == 0, resumed.stderr
    said = [line for line in resumed.stderr.splitlines() if "its window is 8,000" in line]
    assert len(said) == 1 and said[0].endswith("not the 64,000 the session remembers; working within 8,000 from now on"), resumed.stderr


def test_the_silent_cut_says_it_too() -> None:
    cut = Event("window", "learned", 9_000, 8_000, trigger="cut", detail={"given": 32_768})
    assert window_line(cut, WindowChoice("local")).endswith(f"not the 32,768 assumed; {HINT}")
    assert window_line(cut, WindowChoice("local", given=True, remembered=True)).endswith("from now on")
