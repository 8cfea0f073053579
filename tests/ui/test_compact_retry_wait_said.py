"""A /compact whose summary request the server refuses for the moment (a rate limit) says the wait
in the REPL, as a turn's does: the REPL showed only `compacting (manual) … 1s`, then its line, with
no word of why it waited, while `-p /compact --verbose` said `the summary request: the server
answered HTTP 429 (too many requests): sending it again in …`."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.scripted import is_summary_request
from tests.fakes.openai_server import FakeOpenAIServer, Fault, Reply
from tests.ui.repl_driver import drive


def answer(req) -> Reply:
    if is_summary_request(req):
        return Reply.text("<summary>1. Primary Request and Intent: short summary.</summary>")
    return Reply.text("ok " * 1500)


async def test_a_compact_whose_summary_request_waits_says_why(tmp_path: Path) -> None:
    def faults(req, attempt: int) -> Fault | None:
        return Fault.rate_limit(0.01) if is_summary_request(req) and attempt == 0 else None

    with FakeOpenAIServer(answer, faults=faults) as server:
        run = await drive(tmp_path, answer, ["one\r", "two\r", "/compact\r"], server=server)
    lines = [line.strip() for line in run.out.splitlines() if line.strip()]
    wait = ("the summary request: the server answered HTTP 429 (too many requests): "
            "sending it again in a moment (retry 1 of 2)")
    assert wait in lines, run.out
    assert "full transcript archived" in run.out.split(wait)[1], run.out  # said as it waited, then compacted
