"""A request the user stops while its reply streams (Ctrl-C) is counted by /cost: the server answered
it and the provider bills the input it read, yet /cost counted 17 requests of the 18 answered. It is
counted with what is known of it (an OpenAI-compatible stream reports usage only at its end: its
input tokens are the request's estimate), and /cost says so."""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from compact_agent.agent.accounting.costs import Entry, report
from compact_agent.models import REGISTRY
from compact_agent.ui.session_views import stopped_line
from tests.fakes.anthropic_server import AnthropicReply, FakeAnthropicServer
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.ui.repl_driver import drive

STALL = "a reply that stalls"


def answer(req) -> Reply:
    return Reply.text(STALL if req.last_user_text() == "tell me slowly" else "fine")


def stall(handler: Any, begun: list[bytes], pipe: list[Any]) -> None:
    """Stream the reply's first events `begun`, press Ctrl-C in the REPL once the last of them is out,
    then keep the stream open (a comment now and then, which clients skip) until the client leaves."""
    handler.send_response(200)
    handler.send_header("content-type", "text/event-stream; charset=utf-8")
    handler.send_header("transfer-encoding", "chunked")
    handler.end_headers()
    with contextlib.suppress(OSError):  # the client left: the stop
        for n, data in enumerate([*begun, *[b": waiting\n\n"] * 400]):
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            handler.wfile.flush()
            if n == len(begun) + 10:  # Ctrl-C once the reply has begun, and ten paces (0.2 s) later: the
                pipe[0].send_text("\x03")  # client has read its first events, also on a busy machine
            time.sleep(0.02)  # the server's pace, not the test's clock: a stream that stalls
    handler.close_connection = True


class StallingServer(FakeOpenAIServer):
    """Streams the first chunks of the reply `STALL`, then presses Ctrl-C in the REPL and keeps the
    stream open (a comment now and then, which clients skip) until the client leaves."""

    def __init__(self, pipe: list[Any]) -> None:
        super().__init__(answer)
        self.pipe = pipe

    def start(self) -> StallingServer:
        super().start()
        assert self._httpd is not None
        base = self._httpd.RequestHandlerClass
        pipe = self.pipe

        def _stream(handler: Any, outcome: Any) -> None:
            if outcome.payload["choices"][0]["message"]["content"] != STALL:
                return base._stream(handler, outcome)  # type: ignore[attr-defined]
            first = {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "fake-model",
                     "choices": [{"index": 0, "delta": {"role": "assistant", "content": "a reply "},
                                  "finish_reason": None}]}
            stall(handler, [f"data: {json.dumps(first)}\n\n".encode()], pipe)

        self._httpd.RequestHandlerClass = type("Stalling", (base,), {"_stream": _stream})
        return self


class StallingAnthropic(FakeAnthropicServer):
    """As `StallingServer`, for Anthropic's API, whose stream says the input tokens at its start
    (`message_start`): the request is counted with them, nothing estimated."""

    def __init__(self, pipe: list[Any]) -> None:
        super().__init__(lambda req: AnthropicReply(STALL if req.last_user_text() == "tell me slowly" else "fine"))
        self.pipe = pipe

    def __enter__(self) -> StallingAnthropic:
        super().__enter__()
        assert self._httpd is not None
        base = self._httpd.RequestHandlerClass
        pipe = self.pipe

        def _stream(handler: Any, outcome: Any) -> None:
            if outcome.payload["content"][0]["text"] != STALL:
                return base._stream(handler, outcome)  # type: ignore[attr-defined]
            stall(handler, [e.encode() for e in outcome.events[:3]], pipe)

        self._httpd.RequestHandlerClass = type("Stalling", (base,), {"_stream": _stream})
        return self


async def test_cost_counts_the_request_stopped_mid_reply(tmp_path: Path) -> None:
    pipe: list[Any] = []
    with StallingServer(pipe) as server:
        run = await drive(tmp_path, answer, ["hello\r", "tell me slowly\r", "/cost\r"], server=server, pipe=pipe)
        answered = len(server.requests)
    assert answered == 2, run.out
    assert "interrupted" in run.out, run.out
    flat = " ".join(run.out.split())
    row = next(line for line in run.out.splitlines() if "main · fake-model" in line)
    assert row.split("│")[1].strip() == "2", run.out  # both requests the server answered
    assert ("1 request you stopped mid-reply is counted (the provider bills what it read): its input tokens are "
            "an estimate, no usage had come") in flat, run.out
    usage = (tmp_path / "home").rglob("usage.jsonl")
    lines = [json.loads(line) for path in usage for line in path.read_text().splitlines()]
    assert [d.get("stopped", False) for d in lines] == [False, True], lines
    assert lines[1]["input"] > lines[0]["input"] > 0, lines  # its estimate: the first exchange and more


async def test_an_anthropic_request_stopped_mid_reply_counts_the_input_its_stream_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pipe: list[Any] = []
    with StallingAnthropic(pipe) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)  # Anthropic's client, at this server
        run = await drive(tmp_path, answer, ["hello\r", "tell me slowly\r", "/cost\r"],
                          server=SimpleNamespace(base_url=None, requests=[]),  # type: ignore[arg-type]
                          pipe=pipe, model="claude-haiku-4-5")
        reported = [len(json.dumps(r.body)) for r in server.requests]
    assert len(reported) == 2 and "interrupted" in run.out, run.out
    flat = " ".join(run.out.split())
    assert ("1 request you stopped mid-reply is counted with the usage received before the stop (the provider "
            "bills what it read)") in flat, run.out
    usage = (tmp_path / "home").rglob("usage.jsonl")
    lines = [json.loads(line) for path in usage for line in path.read_text().splitlines()]
    assert [(d.get("stopped", False), d.get("estimated", False)) for d in lines] == [(False, False), (True, False)]
    assert lines[1]["output"] == 1, lines  # message_start's count, as the stream said it


def test_the_line_says_what_is_known_of_the_stopped_requests() -> None:
    sonnet = REGISTRY["claude-sonnet-4-5"]
    known = Entry("main", sonnet, 9_000, 8_000, 0, 40, stopped=True)
    guessed = Entry("main", sonnet, 9_000, 0, 0, 0, stopped=True, estimated=True)
    r = report([Entry("main", sonnet, 8_000, 0, 0, 100), known, guessed])
    assert (r.stopped, r.estimated, sum(r.requests.values())) == (2, 1, 3)
    assert stopped_line(1, 0) == ("1 request you stopped mid-reply is counted with the usage received before the "
                                  "stop (the provider bills what it read)")
    assert stopped_line(2, 1) == ("2 requests you stopped mid-reply are counted (the provider bills what it read): "
                                  "1 of them with input tokens estimated, no usage had come")
