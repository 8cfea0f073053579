"""A start that failed at its first request (a key the provider rejects) on `/init` left a session
holding the program's request and the line that says the turn failed: nothing the user typed, no
answer, yet `sessions` listed it and the error said `the session is saved: -c -p ... continues
it`. Such a session now goes as the run ends, said as nothing saved. A session where the user typed
a prompt keeps it, answered or not: what the user typed is never lost."""

from __future__ import annotations

import json

from compact_agent.session.unused import nothing_to_resume
from tests.fakes.openai_server import FakeOpenAIServer, Reply

REJECTED = {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error",
                      "code": "invalid_api_key"}}


def bad_key(req) -> Reply:
    return Reply.error(401, REJECTED)


def run(cli, server, *args: str):
    return cli("-p", *args, "-m", "local", "--base-url", server.base_url, "--api-key", "wrong", "--yes")


def test_a_failed_init_leaves_no_session(cli) -> None:
    with FakeOpenAIServer(bad_key, model="local") as server:
        out = run(cli, server, "/init", "--output-format", "json")
        listed = cli("sessions")
    assert out.code == 1 and len(server.requests) >= 1, out.stderr
    assert "rejected the API key" in out.stderr and "session is saved" not in out.stderr, out.stderr
    assert json.loads(out.stdout)["session_id"] is None
    assert cli.sessions() == [] and not list((cli.home / "projects").glob("*/2*")), \
        list((cli.home / "projects").rglob("*"))
    assert listed.stdout.startswith("no sessions in "), listed.stdout  # no session id listed (a path may hold "20")


def test_a_failed_start_keeps_the_prompt_typed(cli) -> None:
    with FakeOpenAIServer(bad_key, model="local") as server:
        out = run(cli, server, "explain the build, PELICAN")
    assert out.code == 1 and "session is saved" in out.stderr, out.stderr
    [path] = cli.sessions()
    assert "explain the build, PELICAN" in path.read_text()
    assert not nothing_to_resume(path)


def test_a_failed_init_in_a_session_resumed_leaves_it_as_it_was(cli) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("fine"), model="local") as server:
        assert run(cli, server, "hello").code == 0
    [path] = cli.sessions()
    with FakeOpenAIServer(bad_key, model="local") as server:
        out = cli("-c", "-p", "/init", "-m", "local", "--base-url", server.base_url, "--api-key", "wrong", "--yes")
    assert out.code == 1, out.stderr
    assert cli.sessions() == [path] and "hello" in path.read_text()
