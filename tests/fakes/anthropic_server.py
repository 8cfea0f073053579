"""A real HTTP server speaking Anthropic's Messages API (`POST /v1/messages`, JSON or SSE), for tests.

Smaller than the OpenAI fake: it records every request, checks what a rewritten history gets wrong
(a first message not the user's, roles that do not alternate, a `tool_result` without its
`tool_use` in the message before, a `tool_use` left unanswered, empty content), and answers with
text or tool calls from a responder, streamed as Anthropic streams them (`message_start`,
`content_block_*`, `message_delta`, `message_stop`). Point the `anthropic` SDK at it with
`ANTHROPIC_BASE_URL=server.base_url`.
"""

from __future__ import annotations

import itertools
import json
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import ThreadingHTTPServer
from typing import Any

from ._http import Outcome, make_handler
from ._wire import pieces

JSONDict = dict[str, Any]


@dataclass
class MessagesRequest:
    body: JSONDict
    path: str
    headers: dict[str, str]

    @property
    def messages(self) -> list[JSONDict]:
        return list(self.body.get("messages") or [])

    def blocks(self, kind: str) -> list[JSONDict]:
        """Every content block of `kind` ("image", "tool_result", ...), nested ones in tool results too."""
        out: list[JSONDict] = []

        def walk(content: Any) -> None:
            if isinstance(content, list):
                for b in content:
                    if isinstance(b, dict):
                        if b.get("type") == kind:
                            out.append(b)
                        walk(b.get("content"))
        for m in self.messages:
            walk(m.get("content"))
        return out

    def last_user_text(self) -> str:
        for m in reversed(self.messages):
            if m.get("role") == "user":
                content = m.get("content")
                if isinstance(content, str):
                    return content
                return "\n".join(b.get("text", "") for b in content or [] if isinstance(b, dict))
        return ""


@dataclass(frozen=True)
class AnthropicReply:
    text: str = ""
    tool_uses: tuple[tuple[str, JSONDict], ...] = ()


def _error(status: int, kind: str, message: str) -> Outcome:
    return Outcome(status, {"type": "error", "error": {"type": kind, "message": message}})


def validate(body: JSONDict) -> str | None:
    """What the real API would refuse in `body` (one line), or None."""
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    if messages[0].get("role") != "user":  # Bedrock and many local chat templates refuse it too
        return 'messages: first message must use the "user" role'
    pending: set[str] = set()
    for i, m in enumerate(messages):
        role, content = m.get("role"), m.get("content")
        if i and role == messages[i - 1].get("role"):
            return f"messages: roles must alternate between 'user' and 'assistant' (messages.{i})"
        if content in ("", [], None):
            return f"messages.{i}: all messages must have non-empty content"
        blocks = content if isinstance(content, list) else []
        results = {b.get("tool_use_id") for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"}
        if results - pending:
            return f"messages.{i}: unexpected `tool_use_id` found in `tool_result` blocks: {sorted(results - pending)}"
        if pending - results:
            return f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after"
        pending = {b.get("id") for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use"}
    return None


class FakeAnthropicServer:
    """Anthropic Messages API on 127.0.0.1 (random port), served from a daemon thread."""

    def __init__(self, responder: Callable[[MessagesRequest], AnthropicReply], *, malformed: bool = False,
                 reshaped: Callable[[JSONDict], object] | None = None) -> None:
        """`malformed`: every reply is a 200 whose JSON is invalid (its body cut in half; streamed, the
        event after `message_start` is cut), as a proxy glitch sends. `reshaped`: each streamed event's
        data as it rewrites it (valid JSON in a shape the API never sends); None again, as sent."""
        self.responder, self.malformed, self.reshaped = responder, malformed, reshaped
        self.requests: list[MessagesRequest] = []
        self.rejected: list[tuple[MessagesRequest, int, JSONDict]] = []
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._connections: set[socket.socket] = set()
        self._httpd: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        assert self._httpd is not None
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def __enter__(self) -> FakeAnthropicServer:
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(self))
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._httpd is not None
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        with self._lock:
            for c in list(self._connections):
                try:
                    c.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def track(self, connection: socket.socket, open: bool) -> None:
        with self._lock:
            (self._connections.add if open else self._connections.discard)(connection)

    def serve_get(self, path: str, headers: dict[str, str]) -> Outcome:
        return _error(404, "not_found_error", f"Not found: GET {path}")

    def serve_post(self, path: str, raw: bytes, headers: dict[str, str]) -> Outcome:
        if path != "/v1/messages":
            return _error(404, "not_found_error", f"Not found: POST {path}")
        try:
            body = json.loads(raw)
        except ValueError:
            return _error(400, "invalid_request_error", "the body is not JSON")
        req = MessagesRequest(body, path, headers)
        with self._lock:
            self.requests.append(req)
        key = headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ").strip()
        problem = "x-api-key header is required" if not key else validate(body)
        if problem is not None:
            status = 401 if "x-api-key" in problem else 400
            out = _error(status, "authentication_error" if status == 401 else "invalid_request_error", problem)
            with self._lock:
                self.rejected.append((req, status, out.payload))  # type: ignore[arg-type]
            return out
        reply = self.responder(req)
        content: list[JSONDict] = [{"type": "text", "text": reply.text}] if reply.text else []
        content += [{"type": "tool_use", "id": f"toolu_{next(self._ids):04d}", "name": name, "input": args}
                    for name, args in reply.tool_uses]
        usage = {"input_tokens": len(raw) // 4, "output_tokens": max(1, len(json.dumps(content)) // 4)}
        message = {"id": f"msg_{next(self._ids):04d}", "type": "message", "role": "assistant",
                   "model": body.get("model", ""), "content": content,
                   "stop_reason": "tool_use" if reply.tool_uses else "end_turn", "stop_sequence": None,
                   "usage": usage}
        if not body.get("stream"):
            return Outcome(200, message, fault="malformed_json" if self.malformed else None)
        events = _events(message, self.reshaped or (lambda data: data))
        if self.malformed:
            events.insert(1, 'event: content_block_start\ndata: {"type": "content_block_start", "index": 0,\n\n')
        return Outcome(200, message, stream=True, events=events)


def _events(message: JSONDict, change: Callable[[JSONDict], object]) -> list[str]:
    def _sse(kind: str, data: JSONDict) -> str:
        new = change(data)  # named by its type, as Anthropic names every event (an `error` one too)
        kind = new["type"] if isinstance(new, dict) and isinstance(new.get("type"), str) else kind
        return f"event: {kind}\ndata: {json.dumps(new)}\n\n"

    head = {**message, "content": [], "stop_reason": None,
            "usage": {"input_tokens": message["usage"]["input_tokens"], "output_tokens": 1}}
    out = [_sse("message_start", {"type": "message_start", "message": head})]
    for i, block in enumerate(message["content"]):
        if block["type"] == "text":
            out.append(_sse("content_block_start", {"type": "content_block_start", "index": i,
                                                    "content_block": {"type": "text", "text": ""}}))
            out += [_sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                 "delta": {"type": "text_delta", "text": p}})
                    for p in pieces(block["text"])]
        else:
            out.append(_sse("content_block_start", {"type": "content_block_start", "index": i,
                                                    "content_block": {**block, "input": {}}}))
            out += [_sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                 "delta": {"type": "input_json_delta", "partial_json": p}})
                    for p in pieces(json.dumps(block["input"]))]
        out.append(_sse("content_block_stop", {"type": "content_block_stop", "index": i}))
    out.append(_sse("message_delta", {"type": "message_delta",
                                      "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                                      "usage": {"output_tokens": message["usage"]["output_tokens"]}}))
    out.append(_sse("message_stop", {"type": "message_stop"}))
    return out


__all__ = ["AnthropicReply", "FakeAnthropicServer", "MessagesRequest"]
