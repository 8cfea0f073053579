"""Without --base-url the OpenAI client sends to OPENAI_BASE_URL (an Ollama at localhost:11434, a
llama.cpp server). The line of a refusal named that server, but the window it taught was kept as
OpenAI's API's (`local at openai:`): `config` listed it under OpenAI's API, and another server at
another OPENAI_BASE_URL, or OpenAI's own API, serving a model of that name started within it. It
is kept under the address the requests went to, listed and forgotten by it."""

from __future__ import annotations

import json

from compact_agent.agent.run import server_windows
from tests.e2e.conftest import Cli
from tests.e2e.scripted import FileTaskAgent, make_project, task_text
from tests.fakes.openai_server import FakeOpenAIServer

N = 12


def test_a_window_learned_at_openai_base_url_is_kept_under_that_address(cli: Cli) -> None:
    make_project(cli.cwd, N)
    with FakeOpenAIServer(FileTaskAgent(n=N), window=8_000, model="local", overflow="llama.cpp") as server:
        url = server.base_url
        env = {"OPENAI_BASE_URL": url + "/", "OPENAI_API_KEY": "k"}
        run = cli("-p", task_text(N), "-y", "-m", "local", env=env)
        assert run.code == 0, run.stderr
        assert f"the server at {url}" in run.stderr, run.stderr
        kept = server_windows.every(cli.home)
        assert [(at, model, k.window) for at, model, k in kept] == [(url, "local", 8_000)], kept

        again = cli("-p", "/status", "-m", "local", env=env)  # the same server: starts within it
        assert again.code == 0, again.stderr
        assert (f"working within 8,000 tokens, the window {url} named when it refused a request for "
                f"local in an earlier session") in again.stderr, again.stderr

    other = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": "k"}
    elsewhere = cli("-p", "/status", "-m", "local", env=other)  # another server, a model of the same name
    assert elsewhere.code == 0, elsewhere.stderr
    assert "working within 8,000" not in elsewhere.stderr and "8,000" not in elsewhere.stdout, elsewhere.stdout
    listed = cli("config", "--json")
    assert [row["endpoint"] for row in json.loads(listed.stdout)["server_windows"]] == [url], listed.stdout
    assert url in cli("config").stdout

    forgot = cli("config", "--forget-window", url)
    assert forgot.code == 0, forgot.stderr
    assert server_windows.every(cli.home) == []

    # one kept as OpenAI's API's by an earlier version is still OpenAI's API's
    server_windows.path_in(cli.home).write_text(json.dumps({"windows": {"openai:": {"local": 8000}}}))
    assert [(at, k.window) for at, _, k in server_windows.every(cli.home)] == [("openai:", 8_000)]
    assert "working within 8,000" not in cli("-p", "/status", "-m", "local", env=other).stderr
    assert server_windows.forget(cli.home, "openai") != []
