"""A deadline for every HTTP attempt to a provider, however the bytes arrive.

httpx's timeout bounds each read (and connect, write, pool wait) on its own, so a server that
sends one byte of whitespace every half second — or an SSE comment, or a token — never trips it,
and one attempt can run for as long as the server likes. `DeadlineTransport` wraps the real
transport and gives each request one deadline, `timeout_s` after it starts, for everything: the
connection, the headers and every chunk of the body, streamed or not. Past it the attempt fails
with `httpx.ReadTimeout`, which the SDKs treat like any other timeout (retried within their
`max_retries`, then reported).

The client it builds sends its requests through the proxies the environment names (`HTTPS_PROXY`,
`HTTP_PROXY`, `ALL_PROXY`, less `NO_PROXY`), as the SDKs' own client does: httpx reads them only for a
client without a transport of its own, so a deadline's client went straight to the endpoint. A
loopback host (localhost, 127.0.0.0/8, ::1) is sent straight always. An
error on the way to a proxy carries a note naming it, its credentials left out (`proxy_of`), so the
line the user reads names the proxy that could not be reached, not the endpoint behind it.

It also sees where a streamed (SSE) body ends: a stream that stops inside an event — a proxy or
a server that cut the reply and still closed the body properly — would otherwise read as a
complete answer (the SSE parsers drop the torn event silently, and pydantic-ai supplies the
missing finish reason). Such a body fails with `StreamCut` instead, and one whose connection
closed in the middle of it with `ReplyCut`.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import AsyncIterator, Awaitable, Callable

import httpx2 as httpx  # the HTTP client the provider SDKs are built on

from . import retry_notice


class DeadlineTransport(httpx.AsyncBaseTransport):
    """Wraps `inner` so a request and its response body finish within `timeout_s` in all."""

    def __init__(self, inner: httpx.AsyncBaseTransport, timeout_s: float, proxy: tuple[str, str] = ("", "")) -> None:
        self.inner = inner
        self.timeout_s = timeout_s
        self.proxy = proxy  # the proxy `inner` goes through, as `proxy_of` says it: noted on a transport error

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout_s
        tunnel = None
        if self.proxy[0]:  # watched, to tell the proxy's silence from the endpoint's behind it
            tunnel = _Tunnel(request.extensions.get("trace"))
            request.extensions = {**request.extensions, "trace": tunnel}
        try:
            async with asyncio.timeout_at(deadline):
                response = await self.inner.handle_async_request(request)
        except TimeoutError as e:
            retry_notice.note_no_answer(timed_out=True)
            raise _expired(request, self.timeout_s) from e
        except httpx.TransportError as e:
            retry_notice.note_no_answer(timed_out=isinstance(e, httpx.TimeoutException))
            if self.proxy[0] and not proxy_noted(e)[0]:  # each attempt's error is new; noted once all the same
                e.add_note(PROXY_NOTE + "\0".join(self.proxy))
                if tunnel is not None and not tunnel.passed(request):
                    e.add_note(NOTHING_PASSED)
            raise
        retry_notice.note_status(response.status_code)  # why the SDK waits to send it again, if it does
        sse = response.headers.get("content-type", "").startswith("text/event-stream")
        response.stream = _DeadlineStream(response.stream, deadline, request, self.timeout_s, sse)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


class StreamCut(httpx.RemoteProtocolError):
    """A streamed reply that ended inside an event: the answer is incomplete."""


class ReplyCut(httpx.RemoteProtocolError):
    """A reply whose connection closed after its headers, in the middle of its body: the server had
    begun to answer. httpx says it in the words it has for a server that never answered (a
    `RemoteProtocolError` either way), and the SDKs retry both alike; the line the user reads
    tells them apart. `streamed`: an SSE reply, which the SDKs do not retry once it has begun."""

    def __init__(self, message: str, *, request: httpx.Request, streamed: bool) -> None:
        super().__init__(message, request=request)
        self.streamed = streamed


_EVENT_END = re.compile(rb"\r\n\r\n|\n\n|\r\r")


class _DeadlineStream(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.AsyncByteStream | httpx.SyncByteStream, deadline: float,
                 request: httpx.Request, timeout_s: float, sse: bool = False) -> None:
        self.inner = inner
        self.deadline = deadline
        self.request = request
        self.timeout_s = timeout_s
        self.sse = sse
        self.open_event = b""  # bytes after the last event boundary (bounded: only its tail is kept)

    def _track(self, chunk: bytes) -> None:
        data = self.open_event + chunk
        ends = list(_EVENT_END.finditer(data))
        self.open_event = (data[ends[-1].end():] if ends else data)[-4_096:]

    def _check_end(self) -> None:
        rest = self.open_event.strip()
        if self.sse and rest and rest != b"data: [DONE]":
            raise StreamCut("the provider's stream ended in the middle of an event (the reply was cut off)",
                            request=self.request)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        assert isinstance(self.inner, httpx.AsyncByteStream)
        chunks = self.inner.__aiter__()
        while True:
            try:
                async with asyncio.timeout_at(self.deadline):
                    chunk = await chunks.__anext__()
            except StopAsyncIteration:
                self._check_end()
                return
            except TimeoutError as e:
                await self.aclose()
                raise _expired(self.request, self.timeout_s) from e
            except httpx.RemoteProtocolError as e:
                if isinstance(e, StreamCut):
                    raise
                raise ReplyCut(f"the connection closed in the middle of the reply ({e})", request=self.request,
                               streamed=self.sse) from e
            if self.sse:
                self._track(chunk)
            yield chunk

    async def aclose(self) -> None:
        if isinstance(self.inner, httpx.AsyncByteStream):
            await self.inner.aclose()


def _expired(request: httpx.Request, timeout_s: float) -> httpx.ReadTimeout:
    return httpx.ReadTimeout(f"no complete reply within {timeout_s:g} s", request=request)


def deadline_client(timeout_s: float, client_class: Callable[..., httpx.AsyncClient],
                    wrap: Callable[[httpx.AsyncBaseTransport], httpx.AsyncBaseTransport] | None = None,
                    ) -> httpx.AsyncClient:
    """The SDK's own default client (`client_class`) whose every attempt ends within `timeout_s`;
    `wrap`, if given, wraps the deadline's transport (what it reads of a response is within the deadline).

    The per-phase timeout stays the same number, so a silent server still fails as fast as before;
    the connection limits are the SDKs' defaults (a custom transport does not take them otherwise).
    """
    def through(proxy: str | None = None, named: tuple[str, str] = ("", "")) -> httpx.AsyncBaseTransport:
        inner = httpx.AsyncHTTPTransport(proxy=proxy, limits=httpx.Limits(max_connections=1000,
                                                                          max_keepalive_connections=100))
        transport: httpx.AsyncBaseTransport = DeadlineTransport(inner, timeout_s, named)
        return wrap(transport) if wrap else transport

    mounts: dict[str, httpx.AsyncBaseTransport | None] = {}
    for pattern, proxy in _environment_proxies().items():
        if proxy is None:  # a host NO_PROXY names: the transport below, straight to it
            mounts[pattern] = None
            continue
        try:
            mounts[pattern] = through(proxy, proxy_of(proxy, pattern))
        except (ImportError, ValueError, httpx.InvalidURL) as e:  # no socksio, a scheme for none, an unreadable address
            if isinstance(e, ImportError):
                why = "a SOCKS proxy needs the socksio package: install it beside compact-agent"
            elif isinstance(e, httpx.InvalidURL):  # its words quote a part of the address, never the password
                user = proxy.partition("://")[2].partition("/")[0].rpartition("@")[0]
                why = f"its address cannot be read: {str(e).replace(user, '***') if user else e}"
            else:
                why = "a proxy's address starts with http://, https://, socks5:// or socks5h://"
            mounts[pattern] = _Unusable(why, proxy_of(proxy, pattern))  # each request fails, and its line says why
    return client_class(transport=through(), mounts=mounts, timeout=timeout_s)


class ProxyUnusable(httpx.ConnectError):
    """A request for a proxy no client can send through (`_Unusable`): `why`, in words."""


class _Unusable(httpx.AsyncBaseTransport):
    """The transport of a proxy httpx cannot use: every request fails at once, before any byte is
    sent, with the proxy noted as a transport error on the way to it is."""

    def __init__(self, why: str, proxy: tuple[str, str]) -> None:
        self.why, self.proxy = why, proxy

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        e = ProxyUnusable(self.why, request=request)
        e.add_note(PROXY_NOTE + "\0".join(self.proxy))
        raise e


#: How the note a transport error on the way to a proxy carries begins (`DeadlineTransport`).
PROXY_NOTE = "compact-agent proxy: "
#: The note of such an error where nothing had passed the proxy: no tunnel open, or none to open.
NOTHING_PASSED = "compact-agent tunnel: nothing passed the proxy"


_Trace = Callable[[str, dict[str, object]], Awaitable[object]]


class _Tunnel:
    """httpcore's trace of one attempt through a proxy (its `trace` extension, `inner` the one the
    request had): whether the proxy answered a CONNECT, so that a connection closed without an
    answer is told as the proxy's or as the endpoint's behind the tunnel."""

    def __init__(self, inner: _Trace | None) -> None:
        self.inner: _Trace | None = inner.inner if isinstance(inner, _Tunnel) else inner  # sent again: one watch
        self.asked = self.answered = False

    async def __call__(self, name: str, info: dict[str, object]) -> None:
        if name.endswith(".send_request_headers.started"):
            self.asked |= getattr(info.get("request"), "method", b"") in (b"CONNECT", "CONNECT")
        elif name.endswith(".receive_response_headers.complete") and self.asked:
            self.answered = True
        if self.inner is not None:
            await self.inner(name, info)

    def passed(self, request: httpx.Request) -> bool:
        """Something went beyond the proxy: its tunnel answered, or a tunnel opened before (a kept
        connection to an https endpoint). A plain http:// request is the proxy's to answer."""
        return self.answered if self.asked else request.url.scheme == "https"


def _environment_proxies() -> dict[str, str | None]:
    """The proxies the environment names, by the URL patterns they serve, as httpx reads them for a
    client without a transport of its own (the SDKs' default), and the loopback hosts sent straight. httpx gives its reading only from a
    private module: an httpx that no longer has it there gets ours (`_read_proxies`), its rules alike."""
    try:
        from httpx2._utils import get_environment_proxies  # as httpx reads them: its rules, NO_PROXY's too
    except ImportError:
        mounts = _read_proxies()
    else:
        mounts = get_environment_proxies()
    return {**dict.fromkeys(LOOPBACK), **mounts} if mounts else {}


#: The hosts a request goes to straight whatever the variables say (httpx proxies them unless NO_PROXY
#: names them): a server on this machine (llama.cpp, vLLM, Ollama) is never behind a proxy elsewhere.
LOOPBACK = ("all://localhost", "all://127.0.0.0/8", "all://[::1]")


def _read_proxies() -> dict[str, str | None]:
    """What httpx's reading of the variables gives, read here: a proxy for each of http://, https://
    and all:// (`host:port` taken as http://), and each host NO_PROXY names sent straight (a name
    and its subdomains, `.name` and `*.name` only the subdomains, an address or a network, `*` all)."""
    import ipaddress
    from urllib.request import getproxies

    found = getproxies()
    mounts: dict[str, str | None] = {}
    for scheme in ("http", "https", "all"):
        if value := found.get(scheme):
            mounts[f"{scheme}://"] = value if "://" in value else f"http://{value}"
    for host in (h.strip() for h in found.get("no", "").split(",")):
        if host == "*":
            return {}
        try:
            network = ipaddress.ip_network(host, strict=False)
        except ValueError:
            network = None
        if "://" in host:
            pattern = host
        elif network and network.version == 6 and not host.startswith("["):  # bracketed, as a URL holds it
            address, _, bits = host.partition("/")
            pattern = f"all://[{address}]/{bits}" if bits else f"all://[{address}]"
        elif network or host.startswith(("[", "*.")) or host.lower() == "localhost":
            pattern = f"all://{host}"
        else:  # a name and its subdomains (`.name`: the subdomains only); with a path, none
            pattern = f"all://*{host}" if host and "/" not in host else ""
        try:
            httpx.URL(pattern)
        except httpx.InvalidURL:
            continue  # an entry that cannot be read is left out, as httpx, curl and Go leave it
        if pattern:
            mounts[pattern] = None
    return mounts


def proxy_of(url: str, pattern: str) -> tuple[str, str]:
    """The proxy `url` serving the requests `pattern` matches (`https://`, `all://`), as the user
    reads it: its address without the user and password it may hold (`http://***@proxy:3128`), and
    the variable that named it (`HTTPS_PROXY`; "" where none did)."""
    scheme, sep, rest = url.partition("://")  # read as text: an address httpx cannot read is said all the same
    start = f"{scheme}{sep}" if sep else ""
    netloc, slash, path = (rest if sep else url).partition("/")
    shown = url if "@" not in netloc else f"{start}***@{netloc.rpartition('@')[2]}{slash}{path}"
    return shown, _variable_of(pattern.partition("://")[0], url)


def _variable_of(scheme: str, url: str) -> str:
    """The variable whose proxy `url` is, for `scheme`, as urllib chose among its spellings: of those
    holding `url`, a name ending `_proxy` in lowercase (read last, so it wins), the last set of them."""
    named = [name for name, value in os.environ.items() if name.lower() == f"{scheme}_proxy" and value
             and (value if "://" in value else f"http://{value}") == url]
    return ([name for name in named if name.endswith("_proxy")] or named or [""])[-1]


def proxy_noted(e: BaseException) -> tuple[str, str]:
    """The proxy a transport error on the way to it names in its note (`proxy_of`'s two parts), or ("", "")."""
    for note in getattr(e, "__notes__", ()):
        if isinstance(note, str) and note.startswith(PROXY_NOTE):
            shown, _, variable = note.removeprefix(PROXY_NOTE).partition("\0")
            return shown, variable
    return "", ""
