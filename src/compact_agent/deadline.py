"""A deadline for every HTTP attempt to a provider, however the bytes arrive.

httpx's timeout bounds each read (and connect, write, pool wait) on its own, so a server that
sends one byte of whitespace every half second — or an SSE comment, or a token — never trips it,
and one attempt can run for as long as the server likes. `DeadlineTransport` wraps the real
transport and gives each request one deadline, `timeout_s` after it starts, for everything: the
connection, the headers and every chunk of the body, streamed or not. Past it the attempt fails
with `httpx.ReadTimeout`, which the SDKs treat like any other timeout (retried within their
`max_retries`, then reported).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import httpx2 as httpx  # the HTTP client the provider SDKs are built on


class DeadlineTransport(httpx.AsyncBaseTransport):
    """Wraps `inner` so a request and its response body finish within `timeout_s` in all."""

    def __init__(self, inner: httpx.AsyncBaseTransport, timeout_s: float) -> None:
        self.inner = inner
        self.timeout_s = timeout_s

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout_s
        try:
            async with asyncio.timeout_at(deadline):
                response = await self.inner.handle_async_request(request)
        except TimeoutError as e:
            raise _expired(request, self.timeout_s) from e
        response.stream = _DeadlineStream(response.stream, deadline, request, self.timeout_s)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


class _DeadlineStream(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.AsyncByteStream | httpx.SyncByteStream, deadline: float,
                 request: httpx.Request, timeout_s: float) -> None:
        self.inner = inner
        self.deadline = deadline
        self.request = request
        self.timeout_s = timeout_s

    async def __aiter__(self) -> AsyncIterator[bytes]:
        assert isinstance(self.inner, httpx.AsyncByteStream)
        chunks = self.inner.__aiter__()
        while True:
            try:
                async with asyncio.timeout_at(self.deadline):
                    chunk = await chunks.__anext__()
            except StopAsyncIteration:
                return
            except TimeoutError as e:
                await self.aclose()
                raise _expired(self.request, self.timeout_s) from e
            yield chunk

    async def aclose(self) -> None:
        if isinstance(self.inner, httpx.AsyncByteStream):
            await self.inner.aclose()


def _expired(request: httpx.Request, timeout_s: float) -> httpx.ReadTimeout:
    return httpx.ReadTimeout(f"no complete reply within {timeout_s:g} s", request=request)


def deadline_client(timeout_s: float, client_class: Callable[..., httpx.AsyncClient]) -> httpx.AsyncClient:
    """The SDK's own default client (`client_class`) whose every attempt ends within `timeout_s`.

    The per-phase timeout stays the same number, so a silent server still fails as fast as before;
    the connection limits are the SDKs' defaults (a custom transport does not take them otherwise).
    """
    inner = httpx.AsyncHTTPTransport(limits=httpx.Limits(max_connections=1000, max_keepalive_connections=100))
    return client_class(transport=DeadlineTransport(inner, timeout_s), timeout=timeout_s)
