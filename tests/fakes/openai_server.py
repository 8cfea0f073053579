"""A real HTTP server speaking the OpenAI Chat Completions wire protocol, strictly, for end-to-end tests.

Why a server and not a mocked SDK: the project's e2e tests run the real `compact-agent` CLI (pydantic-ai's
`OpenAIChatModel` over the `openai` SDK and httpx) with `--base-url`, so everything from message serialisation to
SSE parsing, retries and error classification is exercised exactly as against OpenAI or DeepSeek. The server is as
strict as those APIs about the things agents get wrong after rewriting history: orphan or unanswered tool calls,
empty messages, and prompts over the context window (answered with `context_length_exceeded`, which pydantic-ai
raises as `ModelContextWindowExceededError`). Token counts are deterministic (`count_tokens`) so tests can steer
compaction precisely, and `usage` reports prompt-cache hits for the longest message prefix shared with any earlier
request, like the providers' prefix caches.

    def responder(req: ChatRequest) -> Reply:
        if not tool_results(req):
            return Reply.tools([("read_file", {"path": "a.py"})])
        return Reply.text("done")

    with FakeOpenAIServer(responder) as server:
        run_cli("--base-url", server.base_url, ...)
        assert not server.rejected
"""

from __future__ import annotations

import itertools
import json
import socket
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from http.server import ThreadingHTTPServer
from typing import Any, Literal

from . import _windows
from ._http import Outcome, make_handler
from ._wire import (
    JSONDict,
    OverflowStyle,
    WireError,
    canonical,
    check_reasoning_sent_back,
    check_roles_alternate,
    check_window,
    completion_tokens,
    count_tokens,
    error_body,
    message_text,
    usage_payload,
    validate_messages,
    validate_tools,
)

__all__ = [
    "ChatRequest",
    "Fault",
    "FakeOpenAIServer",
    "Reply",
    "ResponderError",
    "count_tokens",
    "message_text",
    "tool_results",
    "user_messages",
]

_CREATED = 1_700_000_000  # fixed `created` base: responses are byte-for-byte deterministic per request index


@dataclass
class ChatRequest:
    """One request as the server received it. `tool_choice` is recorded, not enforced: responders decide.

    Real APIs never return tool calls under `tool_choice: "none"`, so a responder that honours it should check
    `req.tool_choice` (the server does not rewrite replies).
    """

    body: JSONDict
    messages: list[JSONDict]
    tools: list[JSONDict]
    stream: bool
    prompt_tokens: int
    index: int
    path: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    attempt: int = 0
    """How many earlier requests had this exact body: 0 first time, 1 for the SDK's first retry, ..."""

    @property
    def tool_choice(self) -> Any:
        return self.body.get("tool_choice")

    @property
    def tool_names(self) -> list[str]:
        return [t.get("function", {}).get("name", "") for t in self.tools]

    def last_user_text(self) -> str:
        """Text of the last `user` message ('' if none): what a scripted agent usually reacts to."""
        return next((message_text(m) for m in reversed(self.messages) if m.get("role") == "user"), "")

    def all_text(self) -> str:
        """All message texts joined by newlines, plus tool call arguments: for "does the prompt mention X" checks."""
        texts = [message_text(m) for m in self.messages]
        texts += [
            c.get("function", {}).get("arguments", "")
            for m in self.messages
            for c in m.get("tool_calls") or []
        ]
        return "\n".join(texts)


def tool_results(req: ChatRequest) -> list[JSONDict]:
    """The `tool` messages after the last assistant message: results of the calls the model made last turn."""
    results: list[JSONDict] = []
    for message in reversed(req.messages):
        if message.get("role") == "assistant":
            break
        if message.get("role") == "tool":
            results.append(message)
    return results[::-1]


def user_messages(req: ChatRequest) -> list[JSONDict]:
    """Every `user` message of the request, in order."""
    return [m for m in req.messages if m.get("role") == "user"]


ToolCallSpec = tuple[str, "JSONDict | str"] | tuple[str, "JSONDict | str", str]


@dataclass(frozen=True)
class Reply:
    """What a responder answers: text and/or tool calls, or an HTTP error. Build with the class methods.

    Tool call arguments given as a dict are sent as its JSON; a string is sent verbatim (to script malformed
    arguments). Ids are generated server-wide unique as `call_<n>` unless a third tuple item gives one.
    `usage` is merged over the computed usage; `finish_reason` overrides `stop`/`tool_calls` (e.g. `"length"`).
    """

    content: str | None = None
    tool_calls: tuple[ToolCallSpec, ...] = ()
    reasoning_content: str | None = None
    usage: JSONDict | None = None
    finish_reason: str | None = None
    error_status: int | None = None
    error_body: JSONDict | None = None
    error_headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def text(
        cls,
        content: str,
        *,
        reasoning_content: str | None = None,
        usage: JSONDict | None = None,
        finish_reason: str | None = None,
    ) -> Reply:
        """A plain assistant message (finish reason `stop` unless overridden, e.g. `"length"`)."""
        return cls(
            content=content, reasoning_content=reasoning_content, usage=usage, finish_reason=finish_reason
        )

    @classmethod
    def tools(
        cls,
        calls: Sequence[ToolCallSpec],
        *,
        content: str | None = None,
        reasoning_content: str | None = None,
        usage: JSONDict | None = None,
    ) -> Reply:
        """Tool calls `[(name, args), ...]` (finish reason `tool_calls`), optionally with some `content`."""
        return cls(content=content, tool_calls=tuple(calls), reasoning_content=reasoning_content, usage=usage)

    @classmethod
    def error(cls, status: int, body: JSONDict, headers: dict[str, str] | None = None) -> Reply:
        """Answer this (valid) request with an HTTP error, e.g. a scripted 400 or 503; recorded in `rejected`."""
        return cls(error_status=status, error_body=body, error_headers=dict(headers or {}))


FaultKind = Literal["http", "drop", "reset_mid_stream", "no_finish", "malformed_json", "slow", "trickle", "torn",
                    "reshaped"]


@dataclass(frozen=True)
class Fault:
    """An injected failure, chosen per request by the `faults` callback (checked after auth, before validation).

    - `http`: reply `status` with `body`/`headers` (e.g. `Fault.rate_limit()`: 429 with `retry-after`).
    - `drop`: close the connection without replying (the client sees a connection error).
    - `reset_mid_stream`: send part of the reply (SSE chunks, or part of the JSON body) and close mid-body.
    - `torn`: a stream of half the events and half of the next one, no `[DONE]`, the body ended cleanly
      (a proxy that cut the reply but closed the connection properly).
    - `no_finish`: a stream with no `finish_reason`, usage chunk or `[DONE]`, but otherwise properly ended;
      non-streaming, `finish_reason` is null. pydantic-ai tolerates this by default (no error).
    - `malformed_json`: 200 whose JSON body (or first SSE event after the role chunk) is invalid.
    - `slow`: wait `seconds` before answering normally (`stop()` cuts the wait short).
    - `trickle`: send the status and headers at once, then one filler every `every` seconds for `seconds` (a
      space before a JSON body, which JSON allows; an SSE comment line in a stream, which clients skip), then
      the reply: a server that is never silent long enough for a read timeout, yet never finishes.
    - `reshaped`: the reply as `change` rewrites it — each streamed chunk, or the whole completion — valid
      JSON in a shape the API never sends (`choices` a string, a field missing).

    The openai SDK retries 408/409/429/5xx and connection errors itself (2 retries by default, so an always-on
    fault shows up as 3 requests); pass `ModelSettings(max_retries=0)` to see the first failure directly.
    """

    kind: FaultKind
    status: int = 0
    body: JSONDict | None = None
    headers: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    every: float = 0.0
    change: Callable[[JSONDict], object] | None = None

    @classmethod
    def http(cls, status: int, body: JSONDict | None = None, headers: dict[str, str] | None = None) -> Fault:
        default = error_body(
            f"Fake server fault: HTTP {status}",
            type="server_error" if status >= 500 else "invalid_request_error",
        )
        return cls("http", status=status, body=body or default, headers=dict(headers or {}))

    @classmethod
    def rate_limit(cls, retry_after: float = 0.0) -> Fault:
        """429 `rate_limit_exceeded`. `retry-after-ms` (at least 1) makes the SDK retry that fast, not back off."""
        headers = {
            "retry-after": str(int(retry_after)),
            "retry-after-ms": str(max(1, int(retry_after * 1000))),
        }
        body = error_body(
            "Rate limit reached for fake-model. Please try again later.",
            type="requests",
            code="rate_limit_exceeded",
        )
        return cls.http(429, body, headers)

    @classmethod
    def drop(cls) -> Fault:
        return cls("drop")

    @classmethod
    def reset_mid_stream(cls) -> Fault:
        return cls("reset_mid_stream")

    @classmethod
    def torn(cls) -> Fault:
        return cls("torn")

    @classmethod
    def no_finish(cls) -> Fault:
        return cls("no_finish")

    @classmethod
    def malformed_json(cls) -> Fault:
        return cls("malformed_json")

    @classmethod
    def slow(cls, seconds: float) -> Fault:
        return cls("slow", seconds=seconds)

    @classmethod
    def trickle(cls, every: float, seconds: float = 30.0) -> Fault:
        return cls("trickle", seconds=seconds, every=every)

    @classmethod
    def reshaped(cls, change: Callable[[JSONDict], object]) -> Fault:
        return cls("reshaped", change=change)


class ResponderError(RuntimeError):
    """A responder or faults callback raised; the server answered 500 and re-raises this on `with` exit."""


class FakeOpenAIServer:
    """OpenAI-compatible Chat Completions server on 127.0.0.1 (random free port), served from a daemon thread.

    Each chat request goes: record (into `requests`) -> auth (401) -> `faults` -> model check (404) -> validation
    (400; in `thinking_mode` also reasoning not sent back) -> context window (400 `context_length_exceeded`) ->
    `responder` -> 200 JSON or SSE. Every 4xx/5xx the server sends is also appended to `rejected` as
    `(request, status, error body)`.

    Args:
        responder: called with each request that passed all checks; returns the `Reply`. Called from handler
            threads (one per connection), so it must be thread-safe if the client sends requests in parallel.
        window: context window in `count_tokens` tokens; prompt + `max_(completion_)tokens` above it is rejected.
        model: the only model served (others get OpenAI's 404 `model_not_found`); listed by `GET /v1/models`.
        chars_per_token: divisor of `count_tokens` and of completion token counts.
        require_auth: a missing or empty `Authorization: Bearer` is a 401 `invalid_api_key`.
        api_key: if set, any other key is a 401 too (checks that the CLI passes the configured key).
        faults: `(request, attempt) -> Fault | None`; `attempt` counts earlier identical requests (0 on the first
            try), so `lambda r, a: Fault.rate_limit() if a == 0 else None` fails once and lets the SDK's retry in.
        overflow: whose words refuse a prompt over `window` (`_wire.OverflowStyle`): OpenAI's by default, or
            llama.cpp server's, vLLM's, SGLang's, TGI's (in the stream, to a streamed request) or TabbyAPI's,
            which pydantic-ai leaves a plain HTTP error.
        writes_at_most: more models served (and listed), each with the most it writes: a
            `max_(completion_)tokens` above it is a 400 `invalid_request_error`, as DeepSeek refuses one above
            its model's output limit.
        serves: more models served (and listed), as a server with several (Ollama) has them.
        lists_models: `GET /v1/models` lists every model served; False answers a 404, as a server without the
            list; names list those (llama.cpp's server lists its file's name and answers any).
        models_fault: how `GET /v1/models` (and `/v1/models/{model}`) fails: `Fault.slow(60)` a server that
            hangs (`stop()` cuts the wait short), `Fault.http(500)`, `Fault.drop()`, `Fault.trickle(...)`.
        thinking_mode: answer as DeepSeek's thinking mode does: a request whose assistant message with tool
            calls lacks its `reasoning_content` (an empty one is taken) is a 400 `invalid_request_error`
            (`_wire.check_reasoning_sent_back`), checked with the messages' other rules. It follows DeepSeek's
            guide (the field "must be passed back to the API in all subsequent requests"): every turn's calls,
            which is stricter than DeepSeek as pydantic-ai observed it (only the calls after the last user
            message refused); code that passes here passes there either way.
        alternating_roles: answer as a server applying a chat template whose user and assistant turns must
            alternate (`_wire.check_roles_alternate`: Mistral's, as vLLM applies it): two user messages with no
            answer between them are a 400 in that template's words; "llama.cpp": a 500, as llama.cpp's server
            with `--jinja` answers it.
        reports: answer where that server says its window, as it does (`_windows`): "vllm" lists each model with
            `max_model_len` (`window`); "llama.cpp" answers `GET /props` (`n_ctx`: `window`) and lists its model
            with `meta.n_ctx_train` (`trained`); "ollama" answers `POST /api/show` (`num_ctx`: `window`, where
            `num_ctx_set`, and `<arch>.context_length`: `trained`) and `GET /api/ps` (`context_length`: `window`,
            once the model is loaded: `loaded`, or after its first chat request). None: none of them (a server
            behind a proxy that forwards its chat and model list only, or one that reports nothing).
    """

    def __init__(
        self,
        responder: Callable[[ChatRequest], Reply],
        *,
        window: int = 128_000,
        model: str = "fake-model",
        chars_per_token: float = 4.0,
        require_auth: bool = True,
        api_key: str | None = None,
        faults: Callable[[ChatRequest, int], Fault | None] | None = None,
        overflow: OverflowStyle = "openai",
        writes_at_most: dict[str, int] | None = None,
        serves: Sequence[str] = (),
        lists_models: bool | Sequence[str] = True,
        models_fault: Fault | None = None,
        thinking_mode: bool = False,
        alternating_roles: bool | Literal["llama.cpp"] = False,
        reports: _windows.Reports | None = None,
        trained: int = 131_072,
        num_ctx_set: bool = True,
        loaded: bool = False,
    ) -> None:
        self.reports, self.trained, self.num_ctx_set, self.loaded = reports, trained, num_ctx_set, loaded
        self.responder, self.faults, self.overflow = responder, faults, overflow
        self.writes_at_most = dict(writes_at_most or {})
        self.serves, self.lists_models, self.models_fault = tuple(serves), lists_models, models_fault
        self.window, self.model, self.chars_per_token = window, model, chars_per_token
        self.require_auth, self.api_key = require_auth, api_key
        self.thinking_mode = thinking_mode
        self.alternating_roles = alternating_roles
        self.requests: list[ChatRequest] = []
        self.asked: list[tuple[str, str, dict[str, str]]] = []
        """Every request that is no chat request (`GET /v1/models`, `/props`, ...): method, path, headers."""
        self.rejected: list[tuple[ChatRequest, int, JSONDict]] = []
        self.errors: list[BaseException] = []
        """Exceptions raised by `responder`/`faults` (each answered with a non-retryable 500)."""
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._seen: Counter[str] = Counter()  # canonical bodies, for `attempt`
        self._answered: list[tuple[tuple[object, str], list[str]]] = []  # ((model, tools key), message keys) of each answered request
        self._call_ids = itertools.count(1)
        self._connections: set[socket.socket] = set()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------------------------------ lifecycle

    @property
    def base_url(self) -> str:
        """`http://127.0.0.1:PORT/v1`: what `--base-url` and `OpenAIProvider(base_url=...)` take."""
        if self._httpd is None:
            raise RuntimeError("FakeOpenAIServer is not started")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def start(self) -> FakeOpenAIServer:
        """Bind a free port on 127.0.0.1 and serve in a daemon thread; returns `self` for chaining."""
        if self._httpd is not None:
            return self
        self.stopping.clear()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(self))
        self._httpd.daemon_threads = True
        self._httpd.handle_error = lambda request, address: None  # type: ignore[method-assign]  # quiet
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(0.05,), daemon=True, name="FakeOpenAIServer"
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the listening socket and every open connection, so no thread lingers."""
        if self._httpd is None:
            return
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        with self._lock:
            for connection in list(self._connections):
                try:
                    connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        assert self._thread is not None
        self._thread.join(timeout=5)
        self._httpd = self._thread = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        self.stop()
        if exc_type is None and self.errors:
            raise ResponderError(f"responder raised: {self.errors[0]!r}") from self.errors[0]

    def track(self, connection: socket.socket, open: bool) -> None:
        """Called by the handler as connections open and close, so `stop()` can close the open ones."""
        with self._lock:
            (self._connections.add if open else self._connections.discard)(connection)

    # ---------------------------------------------------------------------------------------------- serve

    def serve_get(self, path: str, headers: dict[str, str]) -> Outcome:
        """`GET /v1/models` and `GET /v1/models/{model}`, behind the same auth as chat; `/props` or `/api/ps` as
        the server `reports` answers them."""
        with self._lock:
            self.asked.append(("GET", path, headers))
        if (error := self._auth_error(headers)) is not None:
            return Outcome(error.status, error.body)
        if path == "/props" and self.reports == "llama.cpp":
            return Outcome(200, _windows.llama_cpp_props(self.model, self.window))
        if path == "/api/ps" and self.reports == "ollama":
            return Outcome(200, _windows.ollama_ps(self.model, self.window, self.loaded))
        fault = self.models_fault
        if fault is not None and fault.kind == "http":
            return Outcome(fault.status, fault.body, fault.headers)
        if fault is not None and fault.kind in ("slow", "drop", "trickle"):
            return replace(self._models(path), delay=fault.seconds if fault.kind == "slow" else 0.0,
                           fault="drop" if fault.kind == "drop" else None,
                           trickle=(fault.every, fault.seconds) if fault.kind == "trickle" else None)
        return self._models(path)

    def _models(self, path: str) -> Outcome:
        models = [self._listed(name)
                  for name in (self.served_models() if self.lists_models is True else self.lists_models or ())]
        if self.lists_models is False:
            return Outcome(404, error_body(f"Invalid URL (GET {path})"))
        if path in ("/v1/models", "/models"):
            return Outcome(200, {"object": "list", "data": models})
        for model in models:
            if path in (f"/v1/models/{model['id']}", f"/models/{model['id']}"):
                return Outcome(200, model)
        return Outcome(404, error_body(f"Invalid URL (GET {path})"))

    def _listed(self, name: str) -> JSONDict:
        """A model as the model list shows it: as the server `reports` lists it, else OpenAI's plain entry."""
        if self.reports == "vllm":
            return _windows.vllm_model(name, self.window)
        if self.reports == "llama.cpp":
            return _windows.llama_cpp_model(name, self.trained)
        if self.reports == "ollama":
            return _windows.ollama_model(name)
        return {"id": name, "object": "model", "created": _CREATED, "owned_by": "fake"}

    def served_models(self) -> list[str]:
        """Every model it serves: `model`, then `serves` and `writes_at_most`'s."""
        return list(dict.fromkeys([self.model, *self.serves, *self.writes_at_most]))

    def serve_post(self, path: str, raw: bytes, headers: dict[str, str]) -> Outcome:
        """Answer `POST /v1/chat/completions` (or `/chat/completions`): see the class docstring for the order.
        An Ollama (`reports`) answers `POST /api/show` too."""
        if path not in ("/v1/chat/completions", "/chat/completions"):
            with self._lock:
                self.asked.append(("POST", path, headers))
            if path == "/api/show" and self.reports == "ollama":
                return self._show(raw)
            return Outcome(404, error_body(f"Invalid URL (POST {path})"))
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        req = self._record(body if isinstance(body, dict) else {}, path, headers)
        try:
            if (auth := self._auth_error(headers)) is not None:
                raise auth
            if not isinstance(body, dict):
                raise WireError(400, error_body("We could not parse the JSON body of your request."))
            fault = self.faults(req, req.attempt) if self.faults else None
            if fault is not None and fault.kind == "http":
                raise WireError(fault.status, fault.body or {}, fault.headers)
            if fault is not None and fault.kind == "drop":
                return Outcome(fault="drop")
            completion = self._complete(req)
        except WireError as error:
            with self._lock:
                self.rejected.append((req, error.status, error.body))
            if error.stream_event is not None and req.stream:  # the error inside an open stream
                events = [f"data: {json.dumps(error.stream_event)}\n\n", "data: [DONE]\n\n"]
                return Outcome(200, {}, stream=True, events=events)
            return Outcome(error.status, error.body, error.headers)
        except Exception as exc:  # a bug in the test's responder: surface it, and don't let the SDK retry it
            body = error_body(f"fake server responder raised: {exc!r}", type="server_error")
            with self._lock:
                self.errors.append(exc)
                self.rejected.append((req, 500, body))
            return Outcome(500, body, {"x-should-retry": "false"})
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        kind = fault.kind if fault is not None and fault.kind not in ("slow", "trickle", "reshaped") else None
        delay = fault.seconds if fault is not None and fault.kind == "slow" else 0.0
        trickle = (fault.every, fault.seconds) if fault is not None and fault.kind == "trickle" else None
        return Outcome(
            200, completion, stream=req.stream, include_usage=include_usage, fault=kind, delay=delay,
            trickle=trickle, change=fault.change if fault is not None else None,
        )

    def _show(self, raw: bytes) -> Outcome:
        """Ollama's `POST /api/show` of the model its body names (`model`, or `name` as older clients send)."""
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        name = (body.get("model") or body.get("name")) if isinstance(body, dict) else None
        if name not in self.served_models():
            return Outcome(404, {"error": f"model '{name}' not found"})
        return Outcome(200, _windows.ollama_show(str(name), self.window if self.num_ctx_set else None, self.trained))

    def _auth_error(self, headers: dict[str, str]) -> WireError | None:
        header = headers.get("authorization", "")
        key = header.removeprefix("Bearer ").strip() if header.startswith("Bearer ") else ""
        if self.require_auth and not key:
            message = (
                "You didn't provide an API key. You need to provide your API key in an Authorization header "
                "using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."
            )
            return WireError(401, error_body(message, code="invalid_api_key"))
        if self.api_key is not None and key != self.api_key:
            return WireError(401, error_body("Incorrect API key provided.", code="invalid_api_key"))
        return None

    def _record(self, body: JSONDict, path: str, headers: dict[str, str]) -> ChatRequest:
        messages, tools = body.get("messages"), body.get("tools")
        key = canonical([path, body])
        with self._lock:
            req = ChatRequest(
                body=body,
                messages=messages if isinstance(messages, list) else [],
                tools=tools if isinstance(tools, list) else [],
                stream=bool(body.get("stream")),
                prompt_tokens=count_tokens(body, self.chars_per_token),
                index=len(self.requests),
                path=path,
                headers=headers,
                attempt=self._seen[key],
            )
            self._seen[key] += 1
            self.requests.append(req)
        return req

    def _complete(self, req: ChatRequest) -> JSONDict:
        """Validate like the real API, ask the responder, and build the `chat.completion` (or raise `WireError`)."""
        name = req.body.get("model")
        if name not in self.served_models():
            message = f"The model `{name}` does not exist or you do not have access to it."
            raise WireError(404, error_body(message, code="model_not_found"))
        most, asked = self.writes_at_most.get(str(name)), req.body.get("max_completion_tokens") or req.body.get("max_tokens")
        if most is not None and isinstance(asked, int) and asked > most:
            raise WireError(400, error_body(f"Invalid max_tokens value, the valid range of max_tokens is [1, {most}]"))
        validate_messages(req.body.get("messages"))
        if self.thinking_mode:
            check_reasoning_sent_back(req.messages)
        if self.alternating_roles:
            check_roles_alternate(req.messages, as_llama_cpp=self.alternating_roles == "llama.cpp")
        validate_tools(req.body)
        check_window(req.prompt_tokens, req.body, self.window, self.overflow)
        self.loaded = True  # Ollama's model is loaded by the first request it takes (`GET /api/ps`)
        reply = self.responder(req)
        if reply.error_status is not None:
            raise WireError(reply.error_status, reply.error_body or {}, reply.error_headers)
        calls = []
        for spec in reply.tool_calls:
            name, args = spec[0], spec[1]
            call_id = spec[2] if len(spec) > 2 else f"call_{next(self._call_ids)}"  # type: ignore[misc]
            arguments = args if isinstance(args, str) else json.dumps(args)
            calls.append(
                {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
            )
        message: JSONDict = {"role": "assistant", "content": reply.content, "refusal": None}
        if calls:
            message["tool_calls"] = calls
        if reply.reasoning_content is not None:
            message["reasoning_content"] = reply.reasoning_content
        generated = (reply.content or "") + "".join(c["function"]["arguments"] for c in calls)
        reasoning = completion_tokens(reply.reasoning_content or "", self.chars_per_token)
        completion = completion_tokens(generated, self.chars_per_token) + reasoning
        usage = usage_payload(req.prompt_tokens, completion, self._cached_tokens(req), reasoning, reply.usage)
        finish_reason = reply.finish_reason or ("tool_calls" if calls else "stop")
        choice = {"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason}
        return {
            "id": f"chatcmpl-fake{req.index}",
            "object": "chat.completion",
            "created": _CREATED + req.index,
            "model": self.model,
            "system_fingerprint": "fp_fake",
            "choices": [choice],
            "usage": usage,
        }

    def _cached_tokens(self, req: ChatRequest) -> int:
        """Prompt-cache hit: tokens of the longest whole-message prefix shared with any earlier answered request.

        Providers render tools and then the messages in order and cache by prefix, so a hit needs the same
        model and identical tools (compared as canonical JSON) and counts the leading messages that are identical (canonical JSON,
        message by message) as `count_tokens` of those messages plus the tools. Records `req` as answered.
        """
        # A provider's cache is its model's own: another model's requests never read it.
        tools_key, keys = (req.body.get("model"), canonical(req.tools)), [canonical(m) for m in req.messages]
        best = -1
        with self._lock:
            for earlier_tools, earlier in self._answered:
                if earlier_tools == tools_key:
                    pairs = enumerate(zip(keys, earlier, strict=False))
                    best = max(best, next((i for i, (a, b) in pairs if a != b), min(len(keys), len(earlier))))
            self._answered.append((tools_key, keys))
        if best < 0:
            return 0
        return count_tokens({"messages": req.messages[:best], "tools": req.tools}, self.chars_per_token)
