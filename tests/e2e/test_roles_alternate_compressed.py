"""llama.cpp's refusal of turns that do not alternate (HTTP 500, in the template's words) is marked not
to be retried (user_turns.FinalRefusals). It was read only as plain text of a given length: the same
refusal compressed on its way (`Content-Encoding: gzip` or `deflate`, from a proxy in front of the
server or a server built with compression), or sent in chunks with no length (a proxy compressing on
the fly), went unread and was sent twice more with the SDK's backoff before it was learned from. Such
a body is now read too, decompressed only as far as the refusal's words can be, and a long one is
passed on whole; other server errors, compressed or not, are retried as before."""

from __future__ import annotations

import gzip
import hashlib
import json
import threading
import zlib
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.messages import ModelMessage, ModelRequest, TextPart, UserPromptPart
from pydantic_ai.models import ModelRequestParameters

from compact_agent.models import build_model

REFUSAL = {"error": {"code": 500, "type": "server_error",
                     "message": "Conversation roles must alternate user/assistant/user/assistant/..."}}
CODINGS: dict[str, Callable[[bytes], bytes]] = {"identity": bytes, "gzip": gzip.compress, "deflate": zlib.compress,
                                                "raw deflate": lambda b: zlib.compress(b, wbits=-zlib.MAX_WBITS)}


class TemplateServer:
    """A chat-completions server on 127.0.0.1 whose chat template refuses two user messages in a row
    with `refusal` (a 500), every error body sent compressed with `coding`; requests are kept in
    `requests` (their messages' roles)."""

    def __init__(self, coding: str, refusal: bytes, chunked: bool = False) -> None:
        self.coding, self.refusal, self.chunked = coding, refusal, chunked
        self.requests: list[list[str]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - its name
                return None  # quiet: the test reads what it was sent, not http.server's log

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                roles = [m["role"] for m in body["messages"]]
                outer.requests.append(roles)
                if any(a == b == "user" for a, b in zip(roles, roles[1:], strict=False)):
                    coded = {"Content-Encoding": outer.coding.split()[-1]} if outer.coding != "identity" else {}
                    self.send(500, CODINGS[outer.coding](outer.refusal), {**coded, "retry-after-ms": "1"})
                    return
                text = "\n\n".join(str(m["content"]) for m in body["messages"] if m["role"] == "user")
                self.send(200, json.dumps({
                    "id": "c1", "object": "chat.completion", "created": 1, "model": body["model"],
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": text}}],
                    "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10}}).encode(), {})

            def send(self, status: int, payload: bytes, headers: dict[str, str]) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                chunked = outer.chunked and status >= 400  # as a proxy compressing on the fly sends it
                self.send_header(*(("Transfer-Encoding", "chunked") if chunked else ("Content-Length", str(len(payload)))))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                if not chunked:
                    self.wfile.write(payload)
                    return
                for at in range(0, len(payload), 100):
                    piece = payload[at:at + 100]
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.write(b"0\r\n\r\n")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> TemplateServer:
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def asked() -> Iterator[list[ModelMessage]]:
    yield [ModelRequest(parts=[UserPromptPart("the task"), UserPromptPart("a digest")])]


@pytest.mark.parametrize("chunked", [False, True], ids=["length given", "chunked"])
@pytest.mark.parametrize("coding", list(CODINGS))
async def test_a_compressed_refusal_is_sent_once_then_sent_joined(coding: str, chunked: bool,
                                                                  asked: list[ModelMessage]) -> None:
    with TemplateServer(coding, json.dumps(REFUSAL).encode(), chunked) as server:
        model = build_model("local", base_url=server.base_url, api_key="k")  # the SDK's two retries
        answered = await model.request(asked, None, ModelRequestParameters())
    assert [p.content for p in answered.parts if isinstance(p, TextPart)] == ["the task\n\na digest"]
    assert server.requests == [["user", "user"], ["user"]]  # refused once, not three times


async def test_a_compressed_server_error_in_other_words_is_still_retried_and_read(asked: list[ModelMessage]) -> None:
    other = {"error": {"code": 500, "type": "server_error", "message": "the roles of this request could not be loaded"}}
    with TemplateServer("gzip", json.dumps(other).encode()) as server:
        with pytest.raises(ModelHTTPError) as raised:
            await build_model("local", base_url=server.base_url, api_key="k").request(
                asked, None, ModelRequestParameters())
    assert raised.value.status_code == 500 and "could not be loaded" in str(raised.value.body)  # decoded for the SDK
    assert len(server.requests) == 3  # sent, then its two retries, as before


async def test_a_body_that_would_decompress_to_far_more_is_read_only_so_far(asked: list[ModelMessage]) -> None:
    """A few kilobytes that decompress to megabytes before the words: not decompressed to find them
    (the refusal is a few hundred bytes), so the answer is left to the SDK, which retries it, and the
    refusal it ends with is learned from as before."""
    padded = b'{"error": {"message": "' + b" " * 4_000_000 + b'roles must alternate"}}'
    assert len(gzip.compress(padded)) < 16_384
    with TemplateServer("gzip", padded) as server:
        await build_model("local", base_url=server.base_url, api_key="k").request(asked, None, ModelRequestParameters())
    assert server.requests == [["user", "user"]] * 3 + [["user"]]


@pytest.mark.parametrize("coding", ["identity", "gzip"])
async def test_a_long_error_body_of_no_given_length_reaches_the_sdk_whole(coding: str, asked: list[ModelMessage]) -> None:
    """An error body sent in chunks, longer than a refusal: its start read, and passed on with the
    rest as it came; the SDK reads all of it, and retries it as before."""
    filler = "".join(hashlib.sha256(str(i).encode()).hexdigest() for i in range(1_500))  # 96 KB, 48 KB gzipped
    long = {"error": {"code": 500, "message": filler + " the roles of this request could not be loaded"}}
    with TemplateServer(coding, json.dumps(long).encode(), chunked=True) as server:
        with pytest.raises(ModelHTTPError) as raised:
            await build_model("local", base_url=server.base_url, api_key="k").request(
                asked, None, ModelRequestParameters())
    assert raised.value.body == long["error"] or raised.value.body == long, str(raised.value.body)[-200:]
    assert len(server.requests) == 3
