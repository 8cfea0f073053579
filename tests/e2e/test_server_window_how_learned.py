"""A new session that starts within the window an earlier one learned says how the server showed
it. The line said 'the window URL answered with for MODEL' also of a server that cut prompts without
a word (Ollama past its context length), which never answered with any window: the size came from
its usage reports. A refusal names its window; a cut is said as a cut; a window kept by a version
that did not record how is said as found, nothing more."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime
from pathlib import Path

from compact_agent.agent.run import server_windows
from tests.e2e.conftest import Cli
from tests.e2e.scripted import FileTaskAgent, make_project, task_text
from tests.fakes.openai_server import FakeOpenAIServer

N = 12
CUT = 5_000


def test_a_server_that_cut_prompts_is_not_said_to_have_answered_with_a_window(cli: Cli) -> None:
    make_project(cli.cwd, N)
    agent = FileTaskAgent(n=N)

    def cuts_silently(req):  # an Ollama server: the prompt's end kept, its size reported
        reply = agent(req)
        if req.prompt_tokens > CUT:
            return dataclasses.replace(reply, usage={"prompt_tokens": CUT, "prompt_tokens_details": {"cached_tokens": 0}})
        return reply

    with FakeOpenAIServer(cuts_silently, window=128_000, model="local") as server:
        at = ("-m", "local", "--base-url", server.base_url, "--api-key", "k")
        first = cli("-p", task_text(N), "--context-window", "64k", "-y", *at)
        assert first.code == 0, first.stderr
        assert "without saying so" in first.stderr, first.stderr

        status = cli("-p", "/status", *at)  # a new session, no window given
        assert status.code == 0, status.stderr
        assert f"/ window {CUT:,} tokens" in status.stdout, status.stdout
        assert "answered with" not in status.stderr and "refused" not in status.stderr, status.stderr
        line = (f"working within {CUT:,} tokens: in an earlier session {server.base_url} cut prompts for local to "
                f"that size without saying so (compact-agent config --forget-window {server.base_url} forgets it)")
        assert line in status.stderr, status.stderr
        kept = server_windows.remembered_as(cli.home, server.base_url, "local")
        assert kept is not None and (kept.window, kept.how) == (CUT, "cut")


def test_a_server_that_refused_is_said_to_have_named_its_window(cli: Cli) -> None:
    make_project(cli.cwd, N)
    with FakeOpenAIServer(FileTaskAgent(n=N), window=8_000, model="local", overflow="llama.cpp") as server:
        at = ("-m", "local", "--base-url", server.base_url, "--api-key", "k")
        assert cli("-p", task_text(N), "-y", *at).code == 0
        status = cli("-p", "/status", *at)
        assert (f"working within 8,000 tokens, the window {server.base_url} named when it refused a request for "
                f"local in an earlier session (compact-agent config --forget-window {server.base_url} forgets it)") in status.stderr, status.stderr
        kept = server_windows.remembered_as(cli.home, server.base_url, "local")
        assert kept is not None and (kept.window, kept.how) == (8_000, "refused")


def test_how_and_when_are_kept_and_a_bare_window_says_neither(tmp_path: Path) -> None:
    home, url = tmp_path / "h", "http://127.0.0.1:9/v1"
    server_windows.remember(home, url, "local", 8_000, "refused", now=datetime(2026, 5, 1, 9, 30, tzinfo=UTC))
    kept = server_windows.remembered_as(home, url, "local")
    assert kept == server_windows.Kept(8_000, "refused", "2026-05-01T09:30:00+00:00")

    server_windows.path_in(home).write_text(json.dumps({"windows": {url: {"local": 8000}}}))  # as first kept
    kept = server_windows.remembered_as(home, url, "local")
    assert kept is not None and kept == server_windows.Kept(8_000)
    assert server_windows.start_line(kept.window, url, "local", kept.how) == (
        f"working within 8,000 tokens, the window {url} was found to have for local in an earlier session "
        f"(compact-agent config --forget-window {url} forgets it)")
