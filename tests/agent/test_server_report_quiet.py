"""A server that answers and reports no window (LM Studio, a gateway) is not asked again on every start, for
QUIET_FOR; and the REPL asks a server for its window off the event loop its prompt runs on (repl_building.build).
Against real servers on 127.0.0.1."""

from __future__ import annotations

import asyncio
import io
import json
import threading
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from rich.console import Console

from compact_agent.agent.run import server_report
from compact_agent.agent.run.options import SessionOptions
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Fault, Reply

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def hello(req: ChatRequest) -> Reply:
    return Reply.text("hello")


def test_nothing_reported_is_kept_for_seven_days_per_endpoint_and_model(tmp_path: Path) -> None:
    key = "http://127.0.0.1:1234/v1"
    assert not server_report.quiet(tmp_path, key, "local", now=T0)
    server_report.keep_quiet(tmp_path, key, "local", now=T0)
    assert server_report.quiet(tmp_path, key, "local", now=T0 + timedelta(days=6, hours=23))
    assert not server_report.quiet(tmp_path, key, "local", now=T0 + timedelta(days=7))  # asked again
    assert not server_report.quiet(tmp_path, key, "other", now=T0)
    assert not server_report.quiet(tmp_path, "http://127.0.0.1:1235/v1", "local", now=T0)
    server_report.keep_quiet(tmp_path, key, "other", now=T0 + timedelta(days=8))  # the stale one goes
    kept = json.loads((tmp_path / "servers" / server_report.QUIET_FILE).read_text())
    assert kept == {"unreported": {key: {"other": (T0 + timedelta(days=8)).isoformat()}}}


def started(tmp_path: Path, server: FakeOpenAIServer, name: str) -> list[str]:
    from compact_agent.agent.run.runner import AgentSession

    (tmp_path / name).mkdir()
    before = len(server.asked)
    s = AgentSession(SessionOptions(cwd=tmp_path / name, model="local", base_url=server.base_url, api_key="k",
                                    home=tmp_path / "h"))
    s.close()
    assert s.info.window == 32_768 and s.reported is None
    return [path for _, path, _ in server.asked[before:]]


def test_a_server_that_reports_no_window_is_asked_once_not_on_every_start(tmp_path: Path) -> None:
    with FakeOpenAIServer(hello, model="local", require_auth=False) as server:
        assert started(tmp_path, server, "a") != []  # asked, and it answered: no window
        assert started(tmp_path, server, "b") == []  # not again


def test_a_server_that_did_not_answer_is_asked_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Long enough for the request to reach a server thread on a loaded machine (0.3 s did not: asked
    # nothing), far below the 60 s the server holds its answer.
    monkeypatch.setattr(server_report, "WAIT_S", 2.0)
    with FakeOpenAIServer(hello, model="local", require_auth=False, models_fault=Fault.slow(60)) as server:
        assert started(tmp_path, server, "a") == ["/v1/models"]  # too slow: no word on it
        assert started(tmp_path, server, "b") == ["/v1/models"]


class Held(ThreadingHTTPServer):
    """A vLLM-like server that holds its model list until `release` is set (at most `most` seconds)."""

    def __init__(self, most: float) -> None:
        self.release, self.asked, self.most = threading.Event(), threading.Event(), most

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                server: Held = self.server  # type: ignore[assignment]
                server.asked.set()
                server.release.wait(server.most)
                body = json.dumps({"object": "list", "data": [{"id": "local", "max_model_len": 9_000}]}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                return None  # the test's output says nothing of each request

        super().__init__(("127.0.0.1", 0), Handler)


async def test_the_repl_prompt_runs_while_the_server_is_asked(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from compact_agent.ui.repl_building import build
    from compact_agent.ui.repl_start import Start

    monkeypatch.setattr(server_report, "WAIT_S", 3.0)  # asked on the loop, the answer came after the wait
    held = Held(most=5.0)
    threading.Thread(target=held.serve_forever, daemon=True).start()
    (cwd := tmp_path / "p").mkdir()
    opts = SessionOptions(cwd=cwd, model="local", base_url=f"http://127.0.0.1:{held.server_address[1]}/v1",
                          api_key="k", home=tmp_path / "h")

    async def above_prompt(show: Any) -> None:
        show()

    feed = SimpleNamespace(on_event=lambda ev: None, on_compact_start=lambda *a: None, on_change=lambda *a: None)
    r: Any = SimpleNamespace(opts=opts, feed=feed, console=Console(file=io.StringIO(), width=120), prompt=None,
                             work=SimpleNamespace(keys=None), session=None, status_text="", shown_under_line=False,
                             above_prompt=above_prompt)
    order: list[str] = []

    async def the_prompt() -> None:  # a key pressed while the server is asked: handled by the loop
        await asyncio.to_thread(held.asked.wait, 10)
        order.append("the loop ran")
        held.release.set()

    try:
        meanwhile = asyncio.ensure_future(the_prompt())
        await build(r, Start("local", 32_768, "s1", False))
        order.append("built")
        await meanwhile
    finally:
        held.release.set()
        held.shutdown()
        held.server_close()
        if r.session is not None:
            r.session.close()
    session: Any = r.session
    assert order == ["the loop ran", "built"]  # the loop ran while the server held its answer
    assert session.info.window == 9_000 and session.reported.field == "max_model_len"


def test_ollama_with_its_model_not_loaded_yet_is_asked_again(tmp_path: Path) -> None:
    with FakeOpenAIServer(hello, model="local", require_auth=False, reports="ollama", num_ctx_set=False,
                          window=8_192, trained=131_072) as server:
        assert started(tmp_path, server, "a")[-1] == "/api/ps"  # no model loaded: its window is not seen yet
        assert started(tmp_path, server, "b")[-1] == "/api/ps"
