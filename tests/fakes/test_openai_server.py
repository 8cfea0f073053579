"""Tests of the fake OpenAI server: raw wire behaviour (urllib) and the real pydantic-ai client against it."""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import (
    ModelAPIError,
    ModelAuthenticationError,
    ModelConnectionError,
    ModelContextWindowExceededError,
    ModelHTTPError,
    ModelNotFoundError,
    ModelRateLimitError,
    ModelServerError,
    ModelTimeoutError,
    ModelUnavailableError,
)
from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.settings import ModelSettings
from pydantic_ai.usage import RunUsage

from tests.fakes import (
    ChatRequest,
    FakeOpenAIServer,
    Fault,
    Reply,
    ResponderError,
    count_tokens,
    tool_results,
    user_messages,
)

NO_RETRY: ModelSettings = {"max_retries": 0}


# ------------------------------------------------------------------------------------------------ helpers


def post(server: FakeOpenAIServer, body: Any, *, key: str | None = "k", path: str = "/chat/completions"):
    """POST raw JSON; returns (status, parsed JSON or raw text, headers) for success and errors alike."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {"content-type": "application/json"}
    if key is not None:
        headers["authorization"] = f"Bearer {key}"
    request = urllib.request.Request(server.base_url + path, data=data, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            status, raw, response_headers = response.status, response.read().decode(), response.headers
    except urllib.error.HTTPError as error:
        status, raw, response_headers = error.code, error.read().decode(), error.headers
    try:
        return status, json.loads(raw), response_headers
    except ValueError:
        return status, raw, response_headers


def sse_events(text: str) -> list[str]:
    return [line[len("data: ") :] for line in text.splitlines() if line.startswith("data: ")]


def agent_for(server: FakeOpenAIServer, **kwargs: Any) -> Agent[None, str]:
    model = OpenAIChatModel("fake-model", provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
    agent: Agent[None, str] = Agent(model, instructions="You are a calculator.", **kwargs)

    @agent.tool_plain
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    return agent


@dataclass
class Outcome:
    output: str
    usage: RunUsage
    messages: list[ModelMessage]


def run(
    server: FakeOpenAIServer, prompt: str, *, stream: bool = False, settings: ModelSettings | None = None
) -> Outcome:
    """Run a fresh calculator agent once (`run` or `run_stream`) and close its HTTP client afterwards."""
    agent = agent_for(server)

    async def go() -> Outcome:
        async with agent:
            if not stream:
                result = await agent.run(prompt, model_settings=settings)
                return Outcome(result.output, result.usage, result.all_messages())
            async with agent.run_stream(prompt, model_settings=settings) as streamed:
                output = await streamed.get_output()
            return Outcome(output, streamed.usage, streamed.all_messages())

    return asyncio.run(go())


def calculator(req: ChatRequest) -> Reply:
    """Scripted model: call `add` on the first turn, then report the tool's result."""
    results = tool_results(req)
    if not results:
        return Reply.tools([("add", {"a": 2, "b": 3})], reasoning_content="Use the tool.")
    return Reply.text(f"The sum is {results[0]['content']}.")


HELLO = "Hello there, how can I help you today?"


def hello(req: ChatRequest) -> Reply:
    return Reply.text(HELLO)


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(calculator) as fake:
        yield fake


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def call(call_id: str, name: str = "add") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}


def body(*messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"model": "fake-model", "messages": list(messages), **extra}


# ---------------------------------------------------------------------------------------- token counting


def test_count_tokens_is_deterministic_and_counts_every_field() -> None:
    request = body(
        {"role": "system", "content": "abcd"},  # 4 chars
        {
            "role": "user",
            "content": [{"type": "text", "text": "efgh"}, {"type": "image_url", "image_url": {}}],
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "ab", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    )
    # 4 + 4 + (c1 + ab + {}) 6 + (c1 + ok) 4 = 18 chars -> ceil(18 / 4) = 5, plus 4 per message
    assert count_tokens(request) == 5 + 16
    assert count_tokens(request, chars_per_token=1) == 18 + 16
    tools = [{"type": "function", "function": {"name": "add"}}]
    assert count_tokens({**request, "tools": tools}, 1) == 18 + len(json.dumps(tools)) + 16


# -------------------------------------------------------------------------------------------- raw wire


def test_non_streaming_completion_shape_and_usage(server: FakeOpenAIServer) -> None:
    status, payload, _ = post(server, body(user("add 2 and 3")))
    assert status == 200
    assert payload["object"] == "chat.completion"
    choice = payload["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    (tool_call,) = choice["message"]["tool_calls"]
    assert tool_call["type"] == "function"
    assert tool_call["id"].startswith("call_")
    assert json.loads(tool_call["function"]["arguments"]) == {"a": 2, "b": 3}
    assert choice["message"]["reasoning_content"] == "Use the tool."
    usage = payload["usage"]
    assert (
        usage["prompt_tokens"] == server.requests[0].prompt_tokens == count_tokens(body(user("add 2 and 3")))
    )
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert usage["prompt_tokens_details"]["cached_tokens"] == usage["prompt_cache_hit_tokens"] == 0
    assert usage["prompt_cache_miss_tokens"] == usage["prompt_tokens"]
    # Tool call ids are unique across replies.
    _, again, _ = post(server, body(user("add 2 and 3")))
    assert again["choices"][0]["message"]["tool_calls"][0]["id"] != tool_call["id"]


def test_streaming_chunks_follow_openai_order(server: FakeOpenAIServer) -> None:
    status, raw, headers = post(server, body(user("go"), stream=True, stream_options={"include_usage": True}))
    assert status == 200 and headers["content-type"].startswith("text/event-stream")
    events = sse_events(raw)
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert all(c["object"] == "chat.completion.chunk" for c in chunks)
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["prompt_tokens"] > 0
    assert chunks[-2]["choices"][0]["finish_reason"] == "tool_calls"
    deltas = [c["choices"][0]["delta"] for c in chunks[:-1]]
    calls = [tc for d in deltas for tc in d.get("tool_calls", [])]
    assert calls[0]["id"].startswith("call_") and calls[0]["function"]["name"] == "add"
    assert json.loads("".join(tc["function"]["arguments"] for tc in calls)) == {"a": 2, "b": 3}
    assert "".join(d.get("reasoning_content", "") for d in deltas) == "Use the tool."


def test_streaming_without_include_usage_sends_no_usage_chunk() -> None:
    with FakeOpenAIServer(hello) as fake:
        _, raw, _ = post(fake, body(user("hi"), stream=True))
    chunks = [json.loads(e) for e in sse_events(raw)[:-1]]
    assert all("usage" not in c for c in chunks)
    assert "".join(c["choices"][0]["delta"].get("content", "") for c in chunks) == HELLO
    assert len([c for c in chunks if c["choices"][0]["delta"].get("content")]) > 1  # content came in pieces


def test_cached_tokens_are_the_longest_common_message_prefix(server: FakeOpenAIServer) -> None:
    system = {"role": "system", "content": "x" * 400}
    first = body(system, user("one"))
    post(server, first)
    _, payload, _ = post(server, body(system, user("two")))
    assert payload["usage"]["prompt_tokens_details"]["cached_tokens"] == count_tokens(body(system))
    _, payload, _ = post(server, body(system, user("one"), {"role": "assistant", "content": "a"}, user("b")))
    assert payload["usage"]["prompt_cache_hit_tokens"] == count_tokens(first)
    # Different tools: nothing is cached (tools come before the messages in the provider's prompt).
    tools = [{"type": "function", "function": {"name": "add", "parameters": {"type": "object"}}}]
    _, payload, _ = post(server, body(system, user("one"), tools=tools))
    assert payload["usage"]["prompt_tokens_details"]["cached_tokens"] == 0


def test_models_endpoint_and_auth() -> None:
    with FakeOpenAIServer(hello, model="m1") as fake:
        request = urllib.request.Request(fake.base_url + "/models", headers={"authorization": "Bearer k"})
        with urllib.request.urlopen(request, timeout=5) as response:
            assert [m["id"] for m in json.load(response)["data"]] == ["m1"]
        status, payload, _ = post(fake, body(user("hi")), key=None)
    assert status == 401 and payload["error"]["code"] == "invalid_api_key"
    assert fake.rejected[0][1] == 401 and len(fake.requests) == 1


# -------------------------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    ("messages", "needle"),
    [
        ([user("hi"), {"role": "tool", "tool_call_id": "call_9", "content": "x"}], "must be a response"),
        (
            [
                user("hi"),
                {"role": "assistant", "content": None, "tool_calls": [call("c1")]},
                {"role": "tool", "tool_call_id": "c2", "content": "x"},
            ],
            "must be a response",
        ),
        (
            [
                user("hi"),
                {"role": "assistant", "content": None, "tool_calls": [call("c1"), call("c2")]},
                {"role": "tool", "tool_call_id": "c1", "content": "x"},
                user("next"),
            ],
            "did not have response messages: c2",
        ),
        ([user("hi"), {"role": "assistant", "content": None, "tool_calls": [call("c1")]}], "c1"),
        ([], "empty array"),
        ([user("")], "empty"),
        ([user("hi"), {"role": "assistant", "content": None}], "content"),
        ([{"role": "robot", "content": "hi"}], "Supported values"),
    ],
    ids=[
        "orphan-tool",
        "wrong-id",
        "unanswered-before-user",
        "unanswered-at-end",
        "no-messages",
        "empty-user",
        "empty-assistant",
        "bad-role",
    ],
)
def test_invalid_messages_are_rejected_400(
    server: FakeOpenAIServer, messages: list[Any], needle: str
) -> None:
    status, payload, _ = post(server, body(*messages))
    assert status == 400
    assert payload["error"]["type"] == "invalid_request_error" and needle in payload["error"]["message"]
    assert set(payload["error"]) == {"message", "type", "param", "code"}
    assert server.rejected == [(server.requests[0], 400, payload)]


def test_valid_tool_exchange_and_other_request_errors(server: FakeOpenAIServer) -> None:
    exchange = [
        user("hi"),
        {"role": "assistant", "content": None, "tool_calls": [call("c1"), call("c2")]},
        {"role": "tool", "tool_call_id": "c2", "content": "b"},
        {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "a"}]},
    ]
    assert post(server, body(*exchange))[0] == 200
    assert post(server, b"{not json")[0] == 400
    assert post(server, {**body(user("hi")), "model": "gpt-9"})[1]["error"]["code"] == "model_not_found"
    assert post(server, body(user("hi"), stream_options={"include_usage": True}))[0] == 400
    assert post(server, body(user("hi"), tool_choice="required"))[0] == 400
    assert post(server, body(user("hi")), path="/v1/completions")[0] == 404
    assert [status for _, status, _ in server.rejected] == [400, 404, 400, 400]


def test_thinking_mode_refuses_tool_calls_sent_back_without_their_reasoning() -> None:
    """Opt-in, as DeepSeek's thinking mode: an assistant message with tool calls must carry its
    `reasoning_content` in every later request (empty is taken); one without it is a 400 in DeepSeek's words."""
    def exchange(**reasoning: Any) -> dict[str, Any]:
        return body(user("hi"), {"role": "assistant", "content": None, "tool_calls": [call("c1")], **reasoning},
                    {"role": "tool", "tool_call_id": "c1", "content": "a"},
                    {"role": "assistant", "content": "done"}, user("more"))

    with FakeOpenAIServer(calculator, thinking_mode=True) as fake:
        assert post(fake, exchange(reasoning_content="Use the tool."))[0] == 200
        assert post(fake, exchange(reasoning_content=""))[0] == 200
        assert post(fake, body(user("hi"), {"role": "assistant", "content": "no calls"}, user("more")))[0] == 200
        for refused in (exchange(), exchange(reasoning_content=None)):
            status, payload, _ = post(fake, refused)
            assert status == 400 and payload["error"]["type"] == "invalid_request_error"
            assert payload["error"]["message"] == (
                "The `reasoning_content` in the thinking mode must be passed back to the API.")
        assert [status for _, status, _ in fake.rejected] == [400, 400]
    with FakeOpenAIServer(calculator) as fake:  # not asked for: taken, as OpenAI takes it
        assert post(fake, exchange())[0] == 200


def test_a_client_gone_mid_body_sends_no_request(server: FakeOpenAIServer) -> None:
    """A process killed while it sent a request: half the declared body, then the socket closes.
    A real server never sees that request, so the fake neither answers nor records it as rejected."""
    payload = json.dumps(body(user("hi"))).encode()
    host, port = server.base_url.split("//")[1].split("/")[0].split(":")
    with socket.create_connection((host, int(port)), timeout=5) as sock:
        head = (f"POST /v1/chat/completions HTTP/1.1\r\nHost: {host}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n")
        sock.sendall(head.encode() + payload[: len(payload) // 2])
        sock.shutdown(socket.SHUT_WR)
        assert sock.recv(1024) == b""  # closed without an answer
    assert server.requests == [] and server.rejected == []
    assert post(server, body(user("hi")))[0] == 200  # and the server goes on serving


# ----------------------------------------------------------------------------------- pydantic-ai client


def test_pydantic_ai_tool_loop_non_streaming(server: FakeOpenAIServer) -> None:
    result = run(server, "What is 2 + 3?")
    assert result.output == "The sum is 5."
    assert not server.rejected and [r.stream for r in server.requests] == [False, False]
    first, second = server.requests
    assert first.messages[0] == {"role": "system", "content": "You are a calculator."}
    assert first.last_user_text() == "What is 2 + 3?" and user_messages(second) == user_messages(first)
    assert first.tool_names == ["add"] and first.tool_choice == "auto"
    assert [m["content"] for m in tool_results(second)] == ["5"]
    usage = result.usage
    assert usage.requests == 2 and usage.input_tokens == first.prompt_tokens + second.prompt_tokens
    # The second request repeats the first one's messages (and tools): they are a cache hit.
    assert usage.cache_read_tokens == count_tokens({"messages": first.messages, "tools": first.tools})
    assert any(
        isinstance(p, ToolReturnPart) for m in result.messages if isinstance(m, ModelRequest) for p in m.parts
    )


def test_pydantic_ai_tool_loop_streaming(server: FakeOpenAIServer) -> None:
    result = run(server, "What is 2 + 3?", stream=True)
    output, usage = result.output, result.usage
    assert output == "The sum is 5."
    assert not server.rejected and [r.stream for r in server.requests] == [True, True]
    assert all(r.body["stream_options"] == {"include_usage": True} for r in server.requests)
    assert usage.input_tokens == sum(r.prompt_tokens for r in server.requests)
    assert usage.cache_read_tokens > 0


def test_over_window_prompt_raises_context_window_exceeded() -> None:
    with FakeOpenAIServer(hello, window=50) as fake:
        with pytest.raises(ModelContextWindowExceededError) as caught:
            run(fake, "x" * 400)
        assert isinstance(caught.value, ModelHTTPError) and caught.value.status_code == 400
        assert caught.value.provider_error_code == "context_length_exceeded"
        ((req, status, error),) = fake.rejected
        assert status == 400 and f"resulted in {req.prompt_tokens} tokens" in error["error"]["message"]
        # The completion budget counts against the window too.
        with pytest.raises(ModelContextWindowExceededError):
            run(fake, "hi", settings={"max_tokens": 1000})
        assert "in the completion" in fake.rejected[-1][2]["error"]["message"]


def test_wrong_key_and_unknown_model_are_classified() -> None:
    with FakeOpenAIServer(hello, api_key="secret") as fake:
        with pytest.raises(ModelAuthenticationError):
            run(fake, "hi")
    with FakeOpenAIServer(hello, model="other") as fake:
        with pytest.raises(ModelNotFoundError):
            run(fake, "hi")


# ------------------------------------------------------------------------------------------------ faults


def test_rate_limit_then_success_via_sdk_retry() -> None:
    with FakeOpenAIServer(
        hello, faults=lambda req, attempt: Fault.rate_limit() if attempt == 0 else None
    ) as fake:
        assert run(fake, "hi").output == HELLO
    assert [r.attempt for r in fake.requests] == [0, 1] and fake.rejected[0][1] == 429


def test_rate_limit_error_carries_retry_after() -> None:
    with FakeOpenAIServer(hello, faults=lambda req, attempt: Fault.rate_limit()) as fake:
        with pytest.raises(ModelRateLimitError) as caught:
            run(fake, "hi", settings=NO_RETRY)
    assert caught.value.retry_after is not None and caught.value.retry_after < 1
    assert len(fake.requests) == 1


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
@pytest.mark.parametrize(
    ("fault", "expected"),
    [
        (Fault.drop(), ModelConnectionError),
        (Fault.reset_mid_stream(), ModelConnectionError),
        (Fault.malformed_json(), ModelAPIError),
        (Fault.http(503), ModelUnavailableError),
        (Fault.http(500), ModelServerError),
    ],
    ids=["drop", "reset", "malformed", "503", "500"],
)
def test_faults_surface_as_model_api_errors(fault: Fault, expected: type[Exception], stream: bool) -> None:
    with FakeOpenAIServer(hello, faults=lambda req, attempt: fault) as fake:
        with pytest.raises(expected):
            run(fake, "hi", stream=stream, settings=NO_RETRY)
    assert len(fake.requests) == 1


def test_reset_mid_stream_sends_some_chunks_then_an_incomplete_body() -> None:
    with FakeOpenAIServer(hello, faults=lambda req, attempt: Fault.reset_mid_stream()) as fake:
        request = urllib.request.Request(
            fake.base_url + "/chat/completions",
            data=json.dumps(body(user("hi"), stream=True)).encode(),
            headers={"authorization": "Bearer k", "content-type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=5) as response:
            first = response.readline()
            assert first.startswith(b"data: {")
            with pytest.raises(http.client.IncompleteRead):
                response.read()


def test_no_finish_stream_is_tolerated_by_pydantic_ai() -> None:
    with FakeOpenAIServer(hello, faults=lambda req, attempt: Fault.no_finish()) as fake:
        _, raw, _ = post(fake, body(user("hi"), stream=True, stream_options={"include_usage": True}))
        assert "[DONE]" not in raw and '"finish_reason": "stop"' not in raw
        assert run(fake, "hi", stream=True).output == HELLO


def test_slow_fault_times_out_the_client() -> None:
    with FakeOpenAIServer(hello, faults=lambda req, attempt: Fault.slow(5)) as fake:
        with pytest.raises(ModelTimeoutError):
            run(fake, "hi", settings={"max_retries": 0, "timeout": 0.2})


def test_reply_error_and_responder_bugs() -> None:
    def responder(req: ChatRequest) -> Reply:
        if "boom" in req.all_text():
            raise KeyError("scripted bug")
        return Reply.error(418, {"error": {"message": "teapot", "type": "x", "param": None, "code": None}})

    fake = FakeOpenAIServer(responder).start()
    try:
        assert post(fake, body(user("hi")))[0] == 418
        status, _, headers = post(fake, body(user("boom")))
        assert status == 500 and headers["x-should-retry"] == "false"
    finally:
        fake.stop()
    assert [s for _, s, _ in fake.rejected] == [418, 500] and isinstance(fake.errors[0], KeyError)
    with pytest.raises(ResponderError):
        with FakeOpenAIServer(responder) as fake:
            post(fake, body(user("boom")))


def test_stop_closes_keep_alive_connections_and_threads() -> None:
    before = {t.ident for t in threading.enumerate()}
    with FakeOpenAIServer(hello) as fake:
        run(fake, "hi")
        base_url = fake.base_url
        # An HTTP/1.1 client that keeps its connection open: stop() must close it rather than hang or leak.
        idle = http.client.HTTPConnection(
            "127.0.0.1", int(base_url.rsplit(":", 1)[1].split("/")[0]), timeout=5
        )
        idle.request("GET", "/v1/models", headers={"authorization": "Bearer k"})
        assert idle.getresponse().read()
    try:
        lingering = [t for t in threading.enumerate() if t.ident not in before]
        for thread in lingering:
            thread.join(timeout=2)
        assert not [t for t in lingering if t.is_alive()]
        with pytest.raises(urllib.error.URLError):
            urllib.request.urlopen(base_url + "/models", timeout=1)
    finally:
        idle.close()
