"""A server whose window is smaller than the one given (`--context-window 64k` for a server
started with 8K) says so only by refusing a request. The agent learned the limit from the refusal,
but silently: the compactions came at ~6K with nothing to say why, and the next run of the session
(`-c -p /status`) showed the 64,000 window again, and compacted only after another refusal. Now the
run says it once, and the session keeps the limit for as long as it is given the same window."""

from __future__ import annotations

from tests.e2e.conftest import Cli
from tests.e2e.scripted import FileTaskAgent, make_project, task_text
from tests.fakes.openai_server import FakeOpenAIServer

N = 12
NOTE = "its window is 8,000, not the 64,000 given; working within 8,000 from now on"


def test_a_smaller_server_window_is_said_once_and_kept_by_the_session(cli: Cli) -> None:
    total = make_project(cli.cwd, N)
    with FakeOpenAIServer(FileTaskAgent(n=N), window=8_000, model="local") as server:
        at = ("-m", "local", "--base-url", server.base_url, "--api-key", "k")
        first = cli("-p", task_text(N), "--context-window", "64k", "-y", *at)
        assert first.code == 0, first.stderr
        assert f"FINAL SUM: {total}" in first.stdout
        notes = [line for line in first.stderr.splitlines() if NOTE in line]
        assert len(notes) == 1, first.stderr
        assert notes[0].startswith(f"compact-agent: the server at {server.base_url} refused a request whose prompt was ")
        refused = len(server.rejected)
        assert refused == 1, [status for _, status, _ in server.rejected]

        status = cli("-c", "-p", "/status", *at)  # the session's window, remembered: 64k
        assert status.code == 0, status.stderr
        assert "/ window 8,000 tokens" in status.stdout, status.stdout
        said = " ".join(status.stdout.split())  # the server named, as the line that said it learned it named it
        assert f"learned from a refusal by the server at {server.base_url}, not the 64,000" in said, status.stdout
        assert ", not the 64,000 the session remembers" in said, status.stdout  # no flag of this run gave it

        again = cli("-c", "-p", "read data/file_00.txt again", "-y", *at)
        assert again.code == 0, again.stderr
        assert NOTE not in again.stderr and len(server.rejected) == refused  # within 8K from the start

        other = cli("-c", "-p", "/status", "--context-window", "32k", *at)  # another window given: not the server's
        assert "/ window 32,000 tokens" in other.stdout and "learned" not in other.stdout, other.stdout
