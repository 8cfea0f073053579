"""`-c -p "/compact <instructions too long for the window>"`: the summary request cannot be sent, so
nothing is compacted, and a script must see it: exit 1 and `is_error`, as a summary request that
fails (docs/usage.md), not the 0 of a compaction with nothing to do."""

from __future__ import annotations

from tests.e2e.conftest import Cli
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def test_a_compact_whose_instructions_cannot_fit_fails(cli: Cli) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("hello " * 50)) as server:
        args = ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k", "--context-window", "8k")
        assert cli("-p", "hi " + "word " * 300, *args).code == 0
        for _ in range(3):
            assert cli("-c", "-p", "again " + "word " * 300, *args).code == 0
        sent = len(server.requests)
        r = cli("-c", "-p", "/compact " + "please keep this " * 3000, *args, "--output-format", "json")
        assert len(server.requests) == sent  # not sent
    assert r.code == 1, r.stderr
    out = r.json()
    assert out["is_error"] and out["compactions"] == [], out
    assert out["error"].startswith("not compacted: the summary request would take ") and "not sent" in out["error"], out
