"""A server's window learned in one session is remembered for the next ones against the same server
and model. A llama.cpp server started with 8K refused a request in every new session, each then
learning the window again (only `-c` kept it); now a new session with no window given starts within
the one that server answered with, saying so once. A window given on the command line wins."""

from __future__ import annotations

from tests.e2e.conftest import Cli
from tests.e2e.scripted import FileTaskAgent, make_project, task_text
from tests.fakes.openai_server import FakeOpenAIServer

N = 12


def remembered_line(url: str, window: str = "8,000") -> str:
    return (f"working within {window} tokens, the window {url} named when it refused a request for local in an "
            f"earlier session (compact-agent config --forget-window {url} forgets it)")


def test_a_new_session_starts_within_the_window_an_earlier_one_learned(cli: Cli) -> None:
    total = make_project(cli.cwd, N)
    with FakeOpenAIServer(FileTaskAgent(n=N), window=8_000, model="local", overflow="llama.cpp") as server:
        at = ("-m", "local", "--base-url", server.base_url, "--api-key", "k")
        first = cli("-p", task_text(N), "-y", *at)
        assert first.code == 0, first.stderr
        assert f"FINAL SUM: {total}" in first.stdout
        assert len(server.rejected) == 1, [(status, body) for _, status, body in server.rejected]
        assert remembered_line(server.base_url) not in first.stderr

        sent = len(server.requests)
        second = cli("-p", task_text(N), "-y", *at)  # a new session: no -c
        assert second.code == 0, second.stderr
        assert f"FINAL SUM: {total}" in second.stdout
        assert len(server.requests) > sent
        assert len(server.rejected) == 1, [(status, body) for _, status, body in server.rejected]
        said = [line for line in second.stderr.splitlines() if remembered_line(server.base_url) in line]
        assert len(said) == 1, second.stderr
        assert "the server refused" not in second.stderr, second.stderr

        status = cli("-p", "/status", *at)  # another new session: the window it works in is the server's
        assert status.code == 0, status.stderr
        assert "/ window 8,000 tokens" in status.stdout, status.stdout
        flat = " ".join(status.stdout.split())  # the row wraps at the terminal's width
        assert f"learned from a refusal by the server at {server.base_url}, not the 32,768 assumed" in flat, flat


def test_a_window_given_wins_over_the_one_remembered(cli: Cli) -> None:
    make_project(cli.cwd, N)
    with FakeOpenAIServer(FileTaskAgent(n=N), window=8_000, model="local", overflow="llama.cpp") as server:
        at = ("-m", "local", "--base-url", server.base_url, "--api-key", "k")
        assert cli("-p", task_text(N), "-y", *at).code == 0
        assert len(server.rejected) == 1

        given = cli("-p", task_text(N), "-y", "--context-window", "64k", *at)
        assert given.code == 0, given.stderr
        assert remembered_line(server.base_url) not in given.stderr, given.stderr
        assert len(server.rejected) == 2  # sent as the 64,000 given allowed: refused, and learned again
        assert "not the 64,000 given" in given.stderr

        status = cli("-p", "/status", "--context-window", "16k", *at)
        assert "/ window 16,000 tokens" in status.stdout, status.stdout
        assert remembered_line(server.base_url) not in status.stderr

        # The window given was for those runs only: the next with none starts within the server's.
        status = cli("-p", "/status", *at)
        assert remembered_line(server.base_url) in status.stderr, status.stderr
        assert "/ window 8,000 tokens" in status.stdout, status.stdout


def test_a_later_refusal_at_a_smaller_window_replaces_the_one_remembered(cli: Cli) -> None:
    make_project(cli.cwd, N)
    with FakeOpenAIServer(FileTaskAgent(n=N), window=8_000, model="local", overflow="llama.cpp") as server:
        at = ("-m", "local", "--base-url", server.base_url, "--api-key", "k")
        assert cli("-p", task_text(N), "-y", *at).code == 0
        server.window = 4_000  # the server restarted with a smaller context
        smaller = cli("-p", task_text(N), "-y", *at)
        assert smaller.code == 0, smaller.stderr
        assert remembered_line(server.base_url) in smaller.stderr
        assert len(server.rejected) == 2
        assert "its window is 4,000" in smaller.stderr, smaller.stderr

        status = cli("-p", "/status", *at)
        assert remembered_line(server.base_url, "4,000") in status.stderr, status.stderr
        assert "/ window 4,000 tokens" in status.stdout, status.stdout
        # Another model on that server is another window: nothing is remembered for it.
        other = cli("-p", "/status", "-m", "other", "--base-url", server.base_url, "--api-key", "k")
        assert "earlier session" not in other.stderr, other.stderr
