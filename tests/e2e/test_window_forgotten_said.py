"""A window remembered for a server, forgotten because the server took a larger prompt whole, is
said to the user: only the session's event log had it, so the user, who saw a session start
'working within 8,000 tokens' the day before, was not told why the next one did not. One line now
(stderr in print mode; in the REPL after the turn's answer, as its other notices)."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from compact_agent.agent.run import server_windows
from tests.e2e.conftest import Cli
from tests.e2e.scripted import FileTaskAgent, make_project, task_text
from tests.fakes.openai_server import FakeOpenAIServer

N = 12


def test_print_mode_says_the_window_forgotten_once(cli: Cli) -> None:
    total = make_project(cli.cwd, N)
    with FakeOpenAIServer(FileTaskAgent(n=N), window=64_000, model="local") as server:
        server_windows.remember(cli.home, server.base_url, "local", 8_000, "refused",
                                now=datetime(2026, 5, 1, tzinfo=UTC))
        run = cli("-p", task_text(N), "-y", "--context-window", "64k", "-m", "local", "--base-url", server.base_url,
                  "--api-key", "k")
        assert run.code == 0, run.stderr
        assert f"FINAL SUM: {total}" in run.stdout
        said = [line for line in run.stderr.splitlines() if "forgot the window" in line]
        assert len(said) == 1, run.stderr
        line = re.fullmatch(rf"compact-agent: forgot the window of 8,000 tokens remembered for local at "
                            rf"{re.escape(server.base_url)}: the server took a prompt of ([\d,]+) tokens whole", said[0])
        assert line is not None, said[0]
        assert int(line[1].replace(",", "")) > 8_000
        assert server_windows.remembered(cli.home, server.base_url, "local") is None
        events = "".join(p.read_text() for p in cli.home.glob("projects/*/*/events.jsonl"))
        assert events.count('"forgotten"') == 1, events  # in the event log as before


def test_a_window_kept_that_still_holds_is_not_said(cli: Cli) -> None:
    make_project(cli.cwd, N)
    with FakeOpenAIServer(FileTaskAgent(n=N), window=64_000, model="local") as server:
        server_windows.remember(cli.home, server.base_url, "local", 60_000, "refused")
        run = cli("-p", task_text(N), "-y", "--context-window", "64k", "-m", "local", "--base-url", server.base_url,
                  "--api-key", "k")
        assert run.code == 0, run.stderr
        assert "forgot the window" not in run.stderr
        assert server_windows.remembered(cli.home, server.base_url, "local") == 60_000
