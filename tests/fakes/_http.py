"""HTTP transport of the fake OpenAI server: JSON and SSE encoding, and the transport-level faults.

The server core (`openai_server.FakeOpenAIServer`) decides *what* to answer as an `Outcome`; this module only
puts it on the wire the way OpenAI's edge does: HTTP/1.1 keep-alive, `Content-Length` JSON bodies, and streams as
`text/event-stream` with chunked transfer encoding. Chunked encoding matters for faults: a connection closed
before the terminating chunk is an *incomplete* body to httpx (a connection error), whereas a close-delimited
body would look like a normal end of stream.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any, Literal, Protocol

from ._wire import JSONDict, pieces

TransportFault = Literal["drop", "reset_mid_stream", "no_finish", "malformed_json", "torn"]


@dataclass
class Outcome:
    """What to send for one request: a JSON `payload` with `status`, or (status 200) a completion to stream."""

    status: int = 200
    payload: object = None
    headers: dict[str, str] = field(default_factory=dict)
    stream: bool = False
    include_usage: bool = False
    fault: TransportFault | None = None
    delay: float = 0.0
    trickle: tuple[float, float] | None = None  # (every, for how long) a filler is sent before the reply
    events: list[str] | None = None  # a stream's SSE events, encoded by the server (Anthropic's); None: OpenAI chunks
    change: Callable[[JSONDict], object] | None = None  # rewrites each chunk, or the JSON reply (Fault.reshaped)


class Backend(Protocol):
    """The server core, as the handler sees it."""

    stopping: threading.Event

    def serve_get(self, path: str, headers: dict[str, str]) -> Outcome: ...

    def serve_post(self, path: str, raw: bytes, headers: dict[str, str]) -> Outcome: ...

    def track(self, connection: socket.socket, open: bool) -> None: ...


def sse_chunks(completion: JSONDict, include_usage: bool, finish: bool = True) -> list[JSONDict]:
    """The `chat.completion.chunk`s that stream `completion`, in OpenAI's order.

    A role chunk (`content: ""`), `reasoning_content` deltas (DeepSeek), content deltas, per tool call a chunk with
    index/id/name and empty arguments followed by argument pieces, then (if `finish`) a chunk with an empty delta and
    the `finish_reason`, and with `include_usage` a last chunk with `choices: []` and the usage (every earlier chunk
    then carries `usage: null`, as OpenAI's do).
    """
    message, finish_reason = completion["choices"][0]["message"], completion["choices"][0]["finish_reason"]
    deltas: list[JSONDict] = [{"role": "assistant", "content": "", "refusal": None}]
    deltas += [{"reasoning_content": p} for p in pieces(message.get("reasoning_content") or "")]
    deltas += [{"content": p} for p in pieces(message.get("content") or "")]
    for i, call in enumerate(message.get("tool_calls") or []):
        function = call["function"]
        head = {
            "index": i,
            "id": call["id"],
            "type": "function",
            "function": {"name": function["name"], "arguments": ""},
        }
        deltas.append({"tool_calls": [head]})
        deltas += [
            {"tool_calls": [{"index": i, "function": {"arguments": p}}]}
            for p in pieces(function["arguments"])
        ]
    base = {k: completion[k] for k in ("id", "created", "model", "system_fingerprint")}
    base["object"] = "chat.completion.chunk"
    extra: JSONDict = {"usage": None} if include_usage else {}

    def chunk(delta: JSONDict, reason: str | None = None) -> JSONDict:
        return {
            **base,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": reason}],
            **extra,
        }

    chunks = [chunk(d) for d in deltas]
    if finish and finish_reason is not None:
        chunks.append(chunk({}, finish_reason))
        if include_usage:
            chunks.append({**base, "choices": [], "usage": completion["usage"]})
    return chunks


def make_handler(backend: Backend) -> type[BaseHTTPRequestHandler]:
    """A request handler class bound to `backend` (one class per server, so servers don't share state)."""
    return type("FakeOpenAIHandler", (_Handler,), {"backend": backend})


class _Handler(BaseHTTPRequestHandler):
    backend: Backend
    protocol_version = "HTTP/1.1"  # keep-alive and chunked streams, like the real API
    timeout = 30  # idle keep-alive connections end eventually

    def setup(self) -> None:
        super().setup()
        self.backend.track(self.connection, True)

    def finish(self) -> None:
        self.backend.track(self.connection, False)
        try:
            super().finish()
        except OSError:
            pass

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: no access log on stderr (it would interleave with the CLI output tests capture)."""

    def _headers(self) -> dict[str, str]:
        return {k.lower(): v for k, v in self.headers.items()}

    def do_GET(self) -> None:
        self._send(self.backend.serve_get(self.path.split("?")[0], self._headers()))

    def do_POST(self) -> None:
        declared = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(declared)
        if len(raw) < declared:
            # The client went away mid-body (a process killed while sending): a real server never
            # sees a request, so none is recorded, answered or counted as rejected.
            self.close_connection = True
            return
        self._send(self.backend.serve_post(self.path.split("?")[0], raw, self._headers()))

    def _send(self, outcome: Outcome) -> None:
        if outcome.delay:
            self.backend.stopping.wait(outcome.delay)  # `stop()` interrupts the wait
        if outcome.fault == "drop":
            self.close_connection = True  # nothing sent: the client sees the server disconnect
        elif outcome.trickle is not None:
            self._trickle(outcome)
        elif outcome.stream and outcome.status == 200:
            self._stream(outcome)
        else:
            self._json(outcome)

    def _json(self, outcome: Outcome) -> None:
        payload = outcome.payload
        if outcome.fault == "no_finish" and isinstance(payload, dict):
            payload = {**payload, "choices": [{**payload["choices"][0], "finish_reason": None}]}
        if outcome.change is not None and outcome.status == 200 and isinstance(payload, dict):
            payload = outcome.change(payload)
        data = json.dumps(payload).encode()
        declared = len(data)
        if outcome.fault == "malformed_json":
            data = data[: len(data) // 2]
            declared = len(data)
        elif outcome.fault == "reset_mid_stream":
            data = data[: len(data) // 2]  # declare the full length, send half, close: an incomplete body
        self.send_response(outcome.status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(declared))
        for name, value in outcome.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        if outcome.fault == "reset_mid_stream":
            self.close_connection = True

    def _trickle(self, outcome: Outcome) -> None:
        """Headers now, then a filler chunk every `every` s for `seconds` (or until the client leaves or
        the server stops), then the reply as one chunk."""
        assert outcome.trickle is not None
        every, seconds = outcome.trickle
        stream = outcome.stream and outcome.status == 200
        self.send_response(outcome.status)
        self.send_header("content-type", "text/event-stream; charset=utf-8" if stream else "application/json")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        filler = b": keep-alive\n\n" if stream else b" "
        try:
            for _ in range(int(seconds / every)):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(filler), filler))
                self.wfile.flush()
                if self.backend.stopping.wait(every):
                    break
            if stream:
                assert isinstance(outcome.payload, dict)
                events = [f"data: {json.dumps(c)}\n\n" for c in sse_chunks(outcome.payload, outcome.include_usage)]
                data = "".join([*events, "data: [DONE]\n\n"]).encode()
            else:
                data = json.dumps(outcome.payload).encode()
            self.wfile.write(b"%x\r\n%s\r\n0\r\n\r\n" % (len(data), data))
        except OSError:  # the client gave up: that is what a deadline looks like from here
            self.close_connection = True

    def _stream(self, outcome: Outcome) -> None:
        assert isinstance(outcome.payload, dict)
        if outcome.events is not None:
            events = list(outcome.events)
        else:
            chunks = sse_chunks(outcome.payload, outcome.include_usage, finish=outcome.fault != "no_finish")
            change = outcome.change or (lambda chunk: chunk)
            events = [f"data: {json.dumps(change(c))}\n\n" for c in chunks]
        if outcome.fault == "reset_mid_stream":
            events = events[: max(2, len(events) // 2)]
        elif outcome.fault == "torn":  # half the events, then half of the next one; the body ends cleanly
            half = max(2, len(events) // 2)
            events = [*events[:half], events[half][: len(events[half]) // 2]]
        elif outcome.fault == "malformed_json":
            events = [events[0], 'data: {"id": "chatcmpl-broken", "choices": [{\n\n', *events[1:]]
        if (outcome.fault is None or outcome.fault == "malformed_json") and outcome.events is None:
            events.append("data: [DONE]\n\n")
        self.send_response(200)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        for name, value in outcome.headers.items():
            self.send_header(name, value)
        self.end_headers()
        for event in events:
            data = event.encode()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        if outcome.fault == "reset_mid_stream":
            self.close_connection = True  # no terminating chunk: the client sees an incomplete body
        else:
            self.wfile.write(b"0\r\n\r\n")
