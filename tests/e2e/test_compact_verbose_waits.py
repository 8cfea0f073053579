"""`-p /compact --verbose` said none of the summary request's waits before it was sent again (a
turn's were said): now each is, naming its form, and the failure's line counts the requests of both
forms (tests/ui/test_summary_forms_said.py has the words)."""

from __future__ import annotations

from tests.e2e.conftest import Cli
from tests.e2e.scripted import is_summary_request
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def replies(req) -> Reply:
    if is_summary_request(req):
        return Reply.error(500, {"error": {"message": "summary backend down", "type": "server_error"}},
                           {"retry-after-ms": "1"})
    return Reply.text("ok " * 400)


def test_print_mode_compact_with_verbose_says_the_waits(cli: Cli) -> None:
    with FakeOpenAIServer(replies) as server:
        args = ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")
        assert cli("-p", "hello", *args).code == 0
        for _ in range(3):
            assert cli("-c", "-p", "tell me more", *args).code == 0
        r = cli("-c", "-p", "/compact", "--verbose", *args)
    assert r.code == 1, r.stderr
    lines = r.stderr.splitlines()
    assert sum(line.startswith("the summary request: the server answered HTTP 500") for line in lines) == 2, r.stderr
    assert sum(line.startswith("the summary request as text (its second form): ") for line in lines) == 2, r.stderr
    assert "(6 requests in all)" in lines[-1], r.stderr
