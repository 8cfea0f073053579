"""The line said when a server's own window is learned names where the larger one came from. With
no window given (a model the registry does not know, at the 32,768 tokens assumed for it) it said
"not the 32,768 given", which read as if the user had given it; it says "assumed" now, and
"given" only for a window the user gave."""

from __future__ import annotations

import dataclasses

from compact_agent.agent.run.stream_events import WindowChoice, window_line
from compact_agent.context.plumbing.events import Event
from compact_agent.models import UNKNOWN_WINDOW
from tests.e2e.conftest import Cli
from tests.e2e.scripted import FileTaskAgent, make_project, task_text
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.ui.repl_driver import drive, pasted

N = 12
ASSUMED = f"its window is 8,000, not the {UNKNOWN_WINDOW:,} assumed; working within 8,000 from now on"


def test_a_window_assumed_is_not_said_to_be_given(cli: Cli) -> None:
    total = make_project(cli.cwd, N)
    with FakeOpenAIServer(FileTaskAgent(n=N), window=8_000, model="local") as server:
        at = ("-m", "local", "--base-url", server.base_url, "--api-key", "k")
        first = cli("-p", task_text(N), "-y", *at)  # no --context-window: 32,768 assumed
        assert first.code == 0, first.stderr
        assert f"FINAL SUM: {total}" in first.stdout
        assert "given" not in first.stderr, first.stderr
        assert [line for line in first.stderr.splitlines() if ASSUMED in line], first.stderr

        status = cli("-c", "-p", "/status", *at)
        said = " ".join(status.stdout.split())
        assert "learned from a refusal by the server at" in said and f", not the {UNKNOWN_WINDOW:,} assumed" in said, \
            status.stdout


def _learned(given: int) -> Event:
    return Event("window", "learned", 9_000, 8_000, trigger="reactive", detail={"given": given})


def test_the_window_line_says_where_the_window_came_from() -> None:
    assert "not the 64,000 given;" in window_line(_learned(64_000), WindowChoice("local", given=True))
    assert f"not the {UNKNOWN_WINDOW:,} assumed;" in window_line(_learned(UNKNOWN_WINDOW), WindowChoice("local"))
    known = window_line(_learned(128_000), WindowChoice("deepseek-chat"))
    assert "not deepseek-chat's own 128,000;" in known and "given" not in known


async def test_the_repl_says_assumed_too(tmp_path) -> None:
    def cuts(req):  # a server that cuts prompts to 2,000 tokens and reports that size
        reply = Reply.text("done")
        return dataclasses.replace(reply, usage={"prompt_tokens": 2_000}) if req.prompt_tokens > 2_000 else reply

    long = "Requirement: " + "the calculator must keep decimal precision; " * 250  # ~2.8K tokens
    with FakeOpenAIServer(cuts) as server:  # its model, unknown: 32,768 assumed
        run = await drive(tmp_path, None, [pasted(long) + "\r", pasted(long) + " again\r"], server=server)
    assert f"its window is 2,000, not the {UNKNOWN_WINDOW:,} assumed;" in run.out, run.out[-2000:]
    assert "given" not in run.out
