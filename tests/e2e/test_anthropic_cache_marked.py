"""Anthropic caches only what a request marks (`cache_control`), and no request marked anything: every
request of a session was billed at the full input price, while the pipeline priced its decisions with
cache hits. Each request now marks its newest message, so the next one reads the prefix before it."""

from __future__ import annotations

from tests.fakes.anthropic_server import AnthropicReply, FakeAnthropicServer


def marked(body: dict) -> bool:
    last = body["messages"][-1]["content"]
    blocks = last if isinstance(last, list) else []
    return any(isinstance(b, dict) and "cache_control" in b for b in blocks) or "cache_control" in body


def test_every_request_marks_its_newest_message_for_the_cache(cli) -> None:
    with FakeAnthropicServer(lambda req: AnthropicReply("fine")) as server:
        env = {"ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "sk-ant-test"}
        first = cli("-p", "hi", "--model", "claude-sonnet-4-5", env=env)
        again = cli("-c", "-p", "again", "--model", "claude-sonnet-4-5", env=env)
    assert first.code == 0 and again.code == 0, (first.stderr, again.stderr)
    assert len(server.requests) == 2 and all(marked(r.body) for r in server.requests), [r.body for r in server.requests]
