"""No password of the endpoint's address reaches a session file, however short."""

from __future__ import annotations

from tests.fakes.openai_server import FakeOpenAIServer, Reply


def test_a_base_url_password_is_in_no_file_the_session_writes(cli):
    """pydantic-ai records the endpoint in every response (`provider_url`); a password in it shorter
    than a key (which needs 12 characters to be registered) was saved whole in the session file."""
    with FakeOpenAIServer(lambda req: Reply.text("hello"), require_auth=False) as server:
        url = server.base_url.replace("http://", "http://bob:pw12@")
        res = cli("-p", "hi", "--model", "fake-model", "--base-url", url, "--api-key", "k")
        again = cli("-c", "-p", "/compact", "--model", "fake-model", "--base-url", url, "--api-key", "k")
    assert res.code == 0 and res.stdout.strip() == "hello", res.stderr
    assert again.code == 0, again.stderr
    written = [p for p in cli.home.rglob("*") if p.is_file()]
    sessions = [p for p in written if p.suffix == ".jsonl"]
    assert sessions and any(b"provider_url" in p.read_bytes() for p in sessions)
    assert all(b"pw12" not in p.read_bytes() for p in written), [p for p in written if b"pw12" in p.read_bytes()]
    assert any(b"bob:***@" in p.read_bytes() for p in sessions)
