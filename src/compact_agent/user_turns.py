"""Requests to a server whose chat template wants user and assistant turns to alternate.

pydantic-ai's OpenAI mapping sends every user part of a request as a `user` message of its own, and
a request that follows a request as more of them: a typed message and the digest of the rounds
context collapse folded after it, the compaction message and a digest after it, two digests. The
APIs of OpenAI and DeepSeek, and most local servers, take that. A server that renders each request
with the model's chat template (vLLM always, llama.cpp's with `--jinja`) refuses it for models whose
template wants the turns to alternate (Mistral's, Gemma's: "conversation roles must alternate
user/assistant/user/assistant/..."), and since a digest stays in every later request, a session
stopped at its first digest for good.

`AlternatingChatModel`, the model of every server reached through the OpenAI client but DeepSeek's
own, learns it from that refusal: it sends the same request again at once with each run of adjacent
`user` messages joined into one (their texts with a blank line between them, or, where one holds
parts such as an image, all the parts in order), and every later request of the session the same
way, and `on_learned` tells its session, which keeps it for the runs to the same server and model
that follow (agent/run/server_turns.py). The model reads the same words in the same order, and the joining is the same in every request,
so the server's prompt cache still finds its prefix. A server that takes separate messages gets them
as before. A request whose roles alternate only once tool calls are passed over (a digest after tool
results inside a turn, a summary request's instruction) is not what joining mends, and is not sent
again; the summary request's second form, the conversation as one text, goes through such a server.

The refusal is the template's, so sending the same request again cannot help: `FinalRefusals`, the
transport of that model's client, marks an error answer in those words `x-should-retry: false`,
which the openai SDK obeys, and llama.cpp's 500 is not sent twice more with backoff before it is
learned from (vLLM's 400 the SDK never retried).

Imported only by `models.build_model`, after the OpenAI client is loaded.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import Any

import httpx2 as httpx  # the HTTP client the openai SDK is built on
from openai.types import chat
from pydantic_ai import RunContext
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import ModelRequestParameters, StreamedResponse
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.settings import ModelSettings

__all__ = ["AlternatingChatModel", "FinalRefusals", "join_user_runs", "says_turns_must_alternate", "wants_alternation"]

#: Whether the request last mapped in this task held adjacent user messages (joining changes it): a
#: context variable, as two requests of one model may be out at once (a session-notes request beside
#: the turn's), each in its own task.
_had_runs: ContextVar[bool] = ContextVar("had_user_runs", default=False)


class AlternatingChatModel(OpenAIChatModel):
    """pydantic-ai's chat-completions model, sending adjacent user messages as one once a server
    refused them as turns that do not alternate (module docstring). `joins_user_turns`: learned (or
    kept from an earlier run); `on_learned`: called when it is learned."""

    joins_user_turns: bool = False
    on_learned: Callable[[], None] | None = None

    async def _map_messages(self, messages: Sequence[ModelMessage], model_request_parameters: ModelRequestParameters,
                            *, model_settings: ModelSettings | None = None) -> list[chat.ChatCompletionMessageParam]:
        mapped = await super()._map_messages(messages, model_request_parameters, model_settings=model_settings)
        joined = join_user_runs(mapped)
        _had_runs.set(len(joined) < len(mapped))  # of this request: its task's own, whatever others are out
        return joined if self.joins_user_turns else mapped

    def _learn(self, e: ModelHTTPError) -> bool:
        """Whether to send the request `e` refused again, joined: it refused turns that do not
        alternate (learned for every later request), and this one had user messages to join (a
        summary request whose instruction follows tool results has none: sent again, it is refused again)."""
        if not wants_alternation(e):
            return False
        if not self.joins_user_turns and self.on_learned is not None:
            self.on_learned()
        self.joins_user_turns = True
        return _had_runs.get()

    async def request(self, messages: list[ModelMessage], model_settings: ModelSettings | None,
                      model_request_parameters: ModelRequestParameters) -> ModelResponse:
        if not self.joins_user_turns:
            try:
                return await super().request(messages, model_settings, model_request_parameters)
            except ModelHTTPError as e:
                if not self._learn(e):
                    raise
        return await super().request(messages, model_settings, model_request_parameters)

    @asynccontextmanager
    async def request_stream(self, messages: list[ModelMessage], model_settings: ModelSettings | None,
                             model_request_parameters: ModelRequestParameters,
                             run_context: RunContext[Any] | None = None) -> AsyncIterator[StreamedResponse]:
        if not self.joins_user_turns:
            opened = False
            try:
                async with super().request_stream(messages, model_settings, model_request_parameters,
                                                  run_context) as response:
                    opened = True
                    yield response
                return
            except ModelHTTPError as e:
                if opened or not self._learn(e):  # a refusal before anything was streamed only
                    raise
        async with super().request_stream(messages, model_settings, model_request_parameters,
                                          run_context) as response:
            yield response


def wants_alternation(e: ModelHTTPError) -> bool:
    """Whether `e` is a server's refusal of a request whose user and assistant turns do not
    alternate, in the words chat templates raise it with (Mistral's, Gemma's, Llama 2's): vLLM answers
    it as a 400, llama.cpp's server (and Ollama) as a 500."""
    return e.status_code >= 400 and says_turns_must_alternate(f"{e.body} {e.message}")


def says_turns_must_alternate(text: str) -> bool:
    """Whether an error's `text` is a chat template's refusal of turns that do not alternate."""
    return "roles must alternate" in text.lower()


#: The largest error body `FinalRefusals` reads to look for the refusal's words (a template's is a
#: few hundred bytes): one longer, by its length or as read, is passed on as it came.
ERROR_BODY_MAX = 16_384
#: The content codings of an error body it reads, each as zlib's window bits for it (a proxy in front
#: of the server may gzip it): gzip, and deflate, zlib-wrapped or raw, as the HTTP client decodes them
#: for the SDK; one coded otherwise (br, zstd, two codings) is left to the SDK unread.
CODINGS: dict[str, tuple[int, ...]] = {"identity": (), "gzip": (16 + zlib.MAX_WBITS,),
                                       "deflate": (zlib.MAX_WBITS, -zlib.MAX_WBITS)}
#: How much of a compressed error body is decompressed to look for the words: a few kilobytes that
#: would decompress to megabytes are not.
ERROR_TEXT_MAX = 65_536


class FinalRefusals(httpx.AsyncBaseTransport):
    """Wraps `inner` so an error answer (4xx, 5xx) that refuses turns that do not alternate carries
    `x-should-retry: false`: a chat template refuses the same request the same way every time.
    Only an error body is read, plain or compressed (`CODINGS`), and kept as it came, for the SDK to
    read and decode (which it does for an error it does not retry): all of it where it is small, by
    its length or, sent in chunks with none given (a proxy compressing on the fly), as read; a longer
    one goes on with what was read of it before the rest. Any other answer, a streamed reply above
    all, passes as it came, unread."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        size = response.headers.get("content-length")
        coding = response.headers.get("content-encoding", "identity").strip().lower() or "identity"
        if (response.status_code < 400 or coding not in CODINGS
                or (size is not None and (not size.isdigit() or int(size) > ERROR_BODY_MAX))):
            return response
        stream = response.stream
        assert isinstance(stream, httpx.AsyncByteStream)
        chunks, rest = await _first(stream, ERROR_BODY_MAX)
        if rest is not None:  # longer than a refusal: on as it came, what was read of it first
            response.stream = _ReadAhead(chunks, rest, stream)
            return response
        body = b"".join(chunks)
        response.stream = httpx.ByteStream(body)  # as it came: the SDK decodes it as it would have
        if says_turns_must_alternate(_decoded(body, CODINGS[coding]).decode("utf-8", "replace")):
            response.headers["x-should-retry"] = "false"
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


async def _first(stream: httpx.AsyncByteStream, most: int) -> tuple[list[bytes], AsyncIterator[bytes] | None]:
    """The chunks of `stream` up to the first past `most` bytes, and the iterator of the rest where
    there is more (None: all read, and `stream` closed). Closed on an error reading it too."""
    chunks: list[bytes] = []
    read, it = 0, stream.__aiter__()
    try:
        while read <= most:
            try:
                chunks.append(await it.__anext__())
            except StopAsyncIteration:
                await stream.aclose()
                return chunks, None
            read += len(chunks[-1])
    except BaseException:
        await stream.aclose()
        raise
    return chunks, it


class _ReadAhead(httpx.AsyncByteStream):
    """A body `_first` read the start of: those chunks, then the rest, as they came."""

    def __init__(self, chunks: list[bytes], rest: AsyncIterator[bytes], stream: httpx.AsyncByteStream) -> None:
        self.chunks, self.rest, self.stream = chunks, rest, stream

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks:
            yield chunk
        async for chunk in self.rest:
            yield chunk

    async def aclose(self) -> None:
        await self.stream.aclose()


def _decoded(body: bytes, window_bits: tuple[int, ...]) -> bytes:
    """`body` decompressed with the first of `window_bits` that reads it, at most `ERROR_TEXT_MAX`
    bytes of it (none given: as it is); b"" where none reads it (the SDK's decoder says why)."""
    if not window_bits:
        return body
    for bits in window_bits:
        try:
            return zlib.decompressobj(bits).decompress(body, ERROR_TEXT_MAX)
        except zlib.error:
            continue
    return b""


def join_user_runs(messages: list[chat.ChatCompletionMessageParam]) -> list[chat.ChatCompletionMessageParam]:
    """`messages` with each run of adjacent `user` messages joined into the first of them."""
    out: list[chat.ChatCompletionMessageParam] = []
    for message in messages:
        last = out[-1] if out else None
        if last is not None and last["role"] == "user" and message["role"] == "user":
            out[-1] = chat.ChatCompletionUserMessageParam(role="user",
                                                          content=_joined(last["content"], message["content"]))
        else:
            out.append(message)
    return out


def _joined(first: Any, second: Any) -> Any:
    """Two user messages' contents as one: texts with a blank line between them, else their parts."""
    if isinstance(first, str) and isinstance(second, str):
        return f"{first}\n\n{second}"
    return [*_parts(first), *_parts(second)]


def _parts(content: Any) -> list[Any]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
