"""While the provider's SDK waits to send a refused request again (a rate limit, an overloaded or
failing server), the REPL says so under the prompt, with the wait and which retry it is.

Before, the turn showed only its spinner, `thinking… 40s`, through a rate limit's wait, as for a
model at work: a person took a rate limit for a hung agent and stopped the turn."""

from __future__ import annotations

import logging
from pathlib import Path

from compact_agent import retry_notice
from tests.fakes.openai_server import FakeOpenAIServer, Fault, Reply
from tests.ui.repl_driver import drive


def answer(req) -> Reply:
    return Reply.text("here at last")


async def test_a_rate_limit_and_a_failing_server_are_said_as_the_request_waits(tmp_path: Path) -> None:
    def faults(req, attempt: int) -> Fault | None:
        first = "hello" in req.last_user_text() and "again" not in req.last_user_text()
        if attempt == 0:
            return Fault.rate_limit(0.01) if first else Fault.http(503)
        return None

    with FakeOpenAIServer(answer, faults=faults) as server:
        run = await drive(tmp_path, answer, ["hello\r", "hello again\r"], server=server)
    assert len(server.requests) == 4, [r.last_user_text() for r in server.requests]
    lines = [line.strip() for line in run.out.splitlines() if line.strip()]
    assert lines[1:5] == ["the server answered HTTP 429 (too many requests): sending it again in a moment (retry 1 of 2)",
                          "⏺ here at last",
                          "the server answered HTTP 503 (service unavailable): sending it again in a moment (retry 1 of 2)",
                          "⏺ here at last"], run.out


def test_the_wait_is_said_in_seconds_and_an_sdks_record_without_counts_is_read_too() -> None:
    heard: list[str] = []
    with retry_notice.telling(heard.append):
        retry_notice.note_status(529)
        logging.getLogger("openai._base_client").info("Retrying request in %f seconds (retry %i of %s)", 30.0, 2, 2)
        retry_notice.note_no_answer(timed_out=True)
        logging.getLogger("anthropic._base_client").info("Retrying request to %s in %f seconds", "/v1/messages", 1.5)
    logging.getLogger("openai._base_client").info("Retrying request in %f seconds (retry %i of %s)", 1.0, 1, 2)
    assert heard == ["the server answered HTTP 529 (overloaded): sending it again in 30s (retry 2 of 2)",
                     "the request timed out: sending it again in 2s"]  # nobody listens after the block


def test_print_mode_with_verbose_says_it_on_stderr(tmp_path: Path) -> None:
    """`-p --verbose` traces what the REPL shows; without --verbose stderr stays quiet."""
    import asyncio
    import contextlib
    import io

    from compact_agent.agent.run.options import SessionOptions
    from compact_agent.ui.print_mode import run_print

    def faults(req, attempt: int) -> Fault | None:
        return Fault.rate_limit(0.01) if attempt == 0 else None

    (tmp_path / "project").mkdir()
    said = []
    with FakeOpenAIServer(answer, faults=faults) as server:
        for verbose in (True, False):
            opts = SessionOptions(cwd=tmp_path / "project", model="fake-model", base_url=server.base_url,
                                  api_key="k", home=tmp_path / "home")
            err, out = io.StringIO(), io.StringIO()
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
                asyncio.run(run_print(opts, f"hello {verbose}", verbose=verbose))
            said.append(err.getvalue())
    line = "the server answered HTTP 429 (too many requests): sending it again in a moment (retry 1 of 2)"
    assert line in said[0].splitlines(), said[0]
    assert line not in said[1], said[1]
