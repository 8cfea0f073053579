"""A request the user stops before any of its reply came (Esc or Ctrl-C while the model is still
`thinking…`: a slow prefill) is counted by /cost. The server had read it, yet /cost counted 3
requests where the server saw 4, and said nothing of the fourth. It is counted with what the
session knows of it, the input it sent as estimated, and /cost says so in one line."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from compact_agent.agent.accounting.costs import Entry, report
from compact_agent.models import REGISTRY
from compact_agent.ui.session_views import unanswered_line
from tests.e2e.scripted import is_summary_request
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Fault, Reply
from tests.ui.repl_driver import drive

SLOW = "think about it slowly"


def answer(req: ChatRequest) -> Reply:
    return Reply.text("fine")


async def test_cost_counts_a_request_stopped_before_its_reply(tmp_path: Path) -> None:
    pipe: list[Any] = []

    def slow(req: ChatRequest, attempt: int) -> Fault | None:
        if req.last_user_text() != SLOW:
            return None
        pipe[0].send_text("\x03")  # the server has the request: Ctrl-C while no byte of the reply has come
        return Fault.slow(60)  # no reply until the test's server stops (the wait is cut short then)

    with FakeOpenAIServer(answer, faults=slow) as server:
        run = await drive(tmp_path, answer, ["hello\r", SLOW + "\r", "/cost\r"], server=server, pipe=pipe)
        received = len(server.requests)
    assert received == 2, run.out
    assert "interrupted" in run.out, run.out
    row = next(line for line in run.out.splitlines() if "main · fake-model" in line)
    assert row.split("│")[1].strip() == "2", run.out  # both requests the server received
    usage = [json.loads(line) for path in (tmp_path / "home").rglob("usage.jsonl")
             for line in path.read_text().splitlines()]
    assert [(d.get("stopped", False), d.get("estimated", False), d.get("unanswered", False)) for d in usage] == [
        (False, False, False), (True, True, True)], usage
    assert usage[1]["input"] > usage[0]["input"] > 0 and usage[1]["output"] == 0, usage  # its estimate, as sent
    flat = " ".join(run.out.split())
    assert (f"1 request you stopped before its reply began is counted: its input tokens (~{usage[1]['input']:,}) "
            "are an estimate of what was sent, no usage came") in flat, run.out
    assert "stopped mid-reply" not in flat, run.out  # it is not said as one stopped while its reply came


def test_the_lines_say_the_stopped_requests_apart() -> None:
    sonnet = REGISTRY["claude-sonnet-4-5"]
    mid = Entry("main", sonnet, 9_000, 0, 0, 0, stopped=True, estimated=True)
    before = Entry("main", sonnet, 9_500, 0, 0, 0, stopped=True, estimated=True, unanswered=True)
    r = report([Entry("main", sonnet, 8_000, 0, 0, 100), mid, before, before])
    assert (r.stopped, r.estimated, r.unanswered, r.unanswered_input) == (3, 3, 2, 19_000)
    assert sum(r.requests.values()) == 4 and r.total.input_tokens == 8_000 + 9_000 + 19_000
    assert unanswered_line(2, 19_000) == ("2 requests you stopped before their replies began are counted: their "
                                          "input tokens (~19,000) are an estimate of what was sent, no usage came")


async def test_a_turn_stopped_while_it_compacts_counts_no_main_request(tmp_path: Path, monkeypatch: Any) -> None:
    """Stopped while the compaction before its request was still writing the summary, the turn's
    main request was never sent: /cost counts none for it (only what the server was sent)."""
    monkeypatch.setenv("COMPACT_AGENT_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.setenv("COMPACT_AGENT_COLLAPSE_ENABLED", "false")  # the conversation grows to the threshold
    monkeypatch.setenv("COMPACT_AGENT_COMPACTION_RECORDS", "false")  # a summary, asked of the model
    pipe: list[Any] = []
    released = threading.Event()

    def long_answers(req: ChatRequest) -> Reply:
        if is_summary_request(req):
            pipe[0].send_text("\x03")
            released.wait(30)
            return Reply.text("<summary>1. Primary Request and Intent: talk.</summary>")
        return Reply.text("word " * 1500)

    with FakeOpenAIServer(long_answers) as server:
        try:
            run = await drive(tmp_path, long_answers, [f"question {i}\r" for i in range(6)] + ["/cost\r"],
                              server=server, pipe=pipe, context_window=8_000)
        finally:
            released.set()
        main = [r for r in server.requests if not is_summary_request(r)]
    assert any(is_summary_request(r) for r in server.requests) and "interrupted" in run.out, run.out
    row = next(line for line in run.out.splitlines() if "main · fake-model" in line)
    assert row.split("│")[1].strip() == str(len(main)), run.out
    assert "before its reply began" not in run.out, run.out
