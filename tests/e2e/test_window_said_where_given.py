"""Where the window a server turned out smaller than came from, said as it was: a session resumed
with `-c` and no window on its command line had /status say `learned from the server's answers, not
the 32,000 given`, when this run gave none: the session remembered it. A window from the config file
or its variable is said as such; one given by a flag stays `given`."""

from __future__ import annotations

from compact_agent.agent.run.stream_events import WindowChoice
from tests.e2e.conftest import Cli
from tests.e2e.scripted import FileTaskAgent, make_project, task_text
from tests.fakes.openai_server import FakeOpenAIServer

N = 12


def test_a_resumed_session_says_the_window_it_remembers_is_not_given(cli: Cli) -> None:
    make_project(cli.cwd, N)
    with FakeOpenAIServer(FileTaskAgent(n=N), window=8_000, model="local", overflow="llama.cpp") as server:
        at = ("-m", "local", "--base-url", server.base_url, "--api-key", "k")
        first = cli("-p", task_text(N), "-y", "--context-window", "32k", *at)
        assert "its window is 8,000, not the 32,000 given;" in first.stderr, first.stderr
        resumed = cli("-c", "-p", "/status", *at)
        flagged = cli("-c", "-p", "/status", "--context-window", "32k", *at)
    said = " ".join(resumed.stdout.split())
    assert "learned from a refusal by the server at" in said, resumed.stdout
    assert ", not the 32,000 the session remembers" in said, resumed.stdout
    assert ", not the 32,000 given" in " ".join(flagged.stdout.split())


def test_a_window_from_the_config_file_or_its_variable_is_said_so() -> None:
    assert WindowChoice(given=True, source="user file").words(32_000) == "the 32,000 set in the config file"
    assert WindowChoice(given=True, source="project file").words(32_000) == "the 32,000 set in the config file"
    assert WindowChoice(given=True, source="env COMPACT_AGENT_CONTEXT_WINDOW").words(32_000) == (
        "the 32,000 set by COMPACT_AGENT_CONTEXT_WINDOW")
    assert WindowChoice(given=True, source="flag").words(32_000) == "the 32,000 given"
    assert WindowChoice(given=True).words(32_000) == "the 32,000 given"
