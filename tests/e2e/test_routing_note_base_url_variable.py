"""With OPENAI_BASE_URL at a local server (documented in usage.md), the note of a model the registry
does not know said it 'goes to OpenAI (use --base-url for another OpenAI-compatible server)', while
the requests went to that server. Now the variable's server is taken as --base-url's is: its own
model gets no note, and a likely typo is said as going there."""

from __future__ import annotations

from compact_agent.models import routing_note
from tests.e2e.conftest import Cli
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def test_a_local_servers_model_at_openai_base_url_gets_no_note_of_openai(cli: Cli) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("OK from the local server"), model="qwen2.5-coder") as server:
        res = cli("-p", "hi", "-m", "qwen2.5-coder", env={"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "k"})
    assert res.code == 0, res.stderr
    assert "OK from the local server" in res.stdout and len(server.requests) == 1
    assert "OpenAI" not in res.stderr and "note:" not in res.stderr, res.stderr


def test_a_likely_typo_is_said_going_to_the_variables_server(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://user:secret@127.0.0.1:8080/v1")
    assert routing_note("gpt-4o-mimi", None, None) == (
        "model 'gpt-4o-mimi' goes to http://user:***@127.0.0.1:8080/v1 (OPENAI_BASE_URL) with an assumed 32,768-token "
        "window (set the real one with --context-window); did you mean gpt-4o-mini?")
    monkeypatch.delenv("OPENAI_BASE_URL")
    assert "it goes to OpenAI (use --base-url" in (routing_note("gpt-4o-mimi", None, None) or "")
