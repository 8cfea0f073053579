"""A local server says its window where it says its other settings; a session with no window given used to
start at the 32,768 assumed and learn the real one from a refusal (a llama.cpp server at 8,000 refused the first
large request of every new session's first run; a vLLM at 65,536 was never used past 32,768). Now the server is
asked once as the session starts (vLLM's max_model_len, llama.cpp's n_ctx, Ollama's num_ctx or the context of
the model it loaded, never the context the model was trained for), the window it reports is the session's, said
once, and kept for the next sessions, which do not ask again; a refusal still overrides it."""

from __future__ import annotations

from typing import Any

import pytest

from compact_agent.agent.run import server_windows
from tests.e2e.conftest import Cli
from tests.e2e.scripted import FileTaskAgent, make_project, task_text
from tests.fakes.openai_server import FakeOpenAIServer, Fault

N = 12


def note(url: str, window: str, field: str) -> str:
    return (f"working within {window} tokens, the window {url} reports for local ({field}); kept for the next "
            f"sessions (compact-agent config --forget-window {url} forgets it)")


def at(server: FakeOpenAIServer) -> tuple[str, ...]:
    return ("-m", "local", "--base-url", server.base_url, "--api-key", "k")


def window_row(stdout: str) -> str:
    return next(line for line in stdout.splitlines() if "/ window " in line)


@pytest.mark.parametrize(("reports", "field", "extra"), [
    ("vllm", "max_model_len", {}),
    ("llama.cpp", "n_ctx", {"overflow": "llama.cpp", "trained": 32_768}),
    ("ollama", "num_ctx", {"trained": 32_768}),
])
def test_the_window_a_server_reports_is_worked_in_from_the_first_request(
        cli: Cli, reports: str, field: str, extra: dict[str, Any]) -> None:
    total = make_project(cli.cwd, N)
    with FakeOpenAIServer(FileTaskAgent(n=N), window=8_000, model="local", reports=reports, **extra) as server:
        run = cli("-p", task_text(N), "-y", *at(server))
        assert run.code == 0, run.stderr
        assert f"FINAL SUM: {total}" in run.stdout
        assert not server.rejected, [(status, body) for _, status, body in server.rejected]  # nothing was refused
        assert most_sent(server) <= 8_000
        said = [line for line in run.stderr.splitlines() if note(server.base_url, "8,000", field) in line]
        assert len(said) == 1, run.stderr
        kept = server_windows.remembered_as(cli.home, server.base_url, "local")
        assert kept is not None and (kept.window, kept.how) == (8_000, "reported"), kept

        asked = len(server.asked)
        again = cli("-p", "/status", *at(server))  # a new session: the window kept, the server not asked again
        assert again.code == 0, again.stderr
        assert len(server.asked) == asked, server.asked[asked:]
        assert "window 8,000 tokens" in window_row(again.stdout), again.stdout
        assert "reports for" not in again.stderr, again.stderr  # said once, by the session that asked
        listed = cli("config")
        assert "8,000 tokens, reported when asked" in " ".join(listed.stdout.split()), listed.stdout


def most_sent(server: FakeOpenAIServer) -> int:
    return max(r.prompt_tokens + (r.body.get("max_tokens") or 0) for r in server.requests)


def test_a_window_reported_larger_than_the_one_assumed_is_worked_in(cli: Cli) -> None:
    with FakeOpenAIServer(FileTaskAgent(n=1), window=65_536, model="local", reports="vllm") as server:
        run, url = cli("-p", "/status", *at(server)), server.base_url
    assert run.code == 0, run.stderr
    assert "window 65,536 tokens" in window_row(run.stdout), run.stdout
    assert note(url, "65,536", "max_model_len") in run.stderr, run.stderr
    shown = cli("-m", "local", "--base-url", url, "config")  # what a new session there runs with: that window
    row = next(line for line in shown.stdout.splitlines() if line.startswith("context_window"))
    assert row.split()[1] == "65536" and "learned from the server (reported when asked" in row, row


def test_ollama_is_taken_at_the_context_it_serves_not_the_one_its_model_was_trained_for(cli: Cli) -> None:
    with FakeOpenAIServer(FileTaskAgent(n=1), window=8_192, model="local", reports="ollama", num_ctx_set=False,
                          trained=131_072) as server:
        unloaded = cli("-p", "/status", *at(server))  # its default context is seen only in a model loaded
        assert unloaded.code == 0, unloaded.stderr
        assert "window 32,768 tokens" in window_row(unloaded.stdout), unloaded.stdout
        assert "reports for" not in unloaded.stderr and server_windows.every(cli.home) == []
        server.loaded = True
        loaded, url = cli("-p", "/status", *at(server)), server.base_url
    assert loaded.code == 0, loaded.stderr
    assert "window 8,192 tokens" in window_row(loaded.stdout), loaded.stdout
    assert note(url, "8,192", "context_length of the model loaded") in loaded.stderr, loaded.stderr


def test_a_window_given_is_used_and_nothing_is_asked(cli: Cli) -> None:
    with FakeOpenAIServer(FileTaskAgent(n=1), window=8_000, model="local", reports="llama.cpp") as server:
        run = cli("-p", "/status", "--context-window", "16k", *at(server))
    assert run.code == 0, run.stderr
    assert "window 16,000 tokens" in window_row(run.stdout), run.stdout
    assert server.asked == [] and server_windows.every(cli.home) == []


def test_a_refusal_still_overrides_a_window_reported(cli: Cli) -> None:
    make_project(cli.cwd, N)
    with FakeOpenAIServer(FileTaskAgent(n=N), window=16_000, model="local", reports="llama.cpp",
                          overflow="llama.cpp") as server:
        assert cli("-p", "/status", *at(server)).code == 0  # asked: 16,000, kept
        server.window = 8_000  # the server restarted with a smaller context, not asked again
        run, url = cli("-p", task_text(N), "-y", *at(server)), server.base_url
    assert run.code == 0, run.stderr
    assert len(server.rejected) == 1, [(status, body) for _, status, body in server.rejected]
    said = [line for line in run.stderr.splitlines() if "its window is 8,000" in line]
    assert len(said) == 1 and "not the 16,000 it reported; working within 8,000 from now on" in said[0], run.stderr
    kept = server_windows.remembered_as(cli.home, url, "local")
    assert kept is not None and (kept.window, kept.how) == (8_000, "refused"), kept


def test_a_window_too_small_to_start_in_is_said_and_not_kept(cli: Cli) -> None:
    with FakeOpenAIServer(FileTaskAgent(n=1), window=2_048, model="local", reports="llama.cpp") as server:
        run = cli("-p", "hello", *at(server))
        assert run.code == 2, run.stderr
        assert (f"the minimum is 4,096 (the window {server.base_url} reports for local: start that server with a "
                "larger context)") in run.stderr, run.stderr
        assert "Traceback" not in run.stderr and not server.requests
        assert server_windows.every(cli.home) == []  # asked again next time: the server may be restarted larger
        server.window = 16_000
        again = cli("-p", "/status", *at(server))
    assert again.code == 0, again.stderr
    assert "window 16,000 tokens" in window_row(again.stdout), again.stdout


@pytest.mark.parametrize("fault", [Fault.http(500), Fault.drop()], ids=["http-500", "dropped"])
def test_a_server_that_does_not_answer_starts_the_session_as_before(cli: Cli, fault: Fault) -> None:
    with FakeOpenAIServer(FileTaskAgent(n=1), window=8_000, model="local", models_fault=fault) as server:
        run = cli("-p", "/status", *at(server))
    assert run.code == 0, run.stderr
    assert "window 32,768 tokens" in window_row(run.stdout), run.stdout
    assert run.stderr.strip() == "", run.stderr
