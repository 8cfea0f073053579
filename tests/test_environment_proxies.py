"""How the agent's client reads the proxies the environment names (deadline.py), in-process: its
requests to a name only the proxy resolves (`model.test`) reach the fake server as a proxy does,
in a proxy's form (the whole address)."""

from __future__ import annotations

import os

import httpx2 as httpx
import pytest

from compact_agent import deadline
from tests.fakes.openai_server import FakeOpenAIServer, Reply

NO_PROXY_CASES = ["127.0.0.1", "10.0.0.0/8", "localhost", ".local", "*.corp.example", "example.com", "::1",
                  "fe80::/10", "[::1]", "http://x.example", "a b", "a/b", "127.0.0.1:8000", "*",
                  "example.com, .foo.org ,10.0.0.0/8", ""]


def through_proxy(server: FakeOpenAIServer) -> str:
    return "http://" + server.base_url.removeprefix("http://").partition("/")[0]


@pytest.fixture
def no_private_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    """An httpx whose private module no longer gives its reading of the variables."""
    import httpx2._utils

    monkeypatch.delattr(httpx2._utils, "get_environment_proxies")


async def test_without_httpxs_own_reading_proxies_still_carry_requests(no_private_reading, monkeypatch) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("hello")) as proxy:
        monkeypatch.setenv("HTTP_PROXY", through_proxy(proxy))
        monkeypatch.setenv("NO_PROXY", "straight.test")
        async with deadline.deadline_client(5, httpx.AsyncClient) as client:
            await client.get("http://model.test/v1/models")
            with pytest.raises(httpx.ConnectError) as straight:  # a name no resolver knows: tried, not proxied
                await client.get("http://straight.test/v1/models")
        asked = [path for _, path, _ in proxy.asked]
    assert asked == ["http://model.test/v1/models"], asked
    assert deadline.proxy_noted(straight.value) == ("", "")


@pytest.mark.parametrize("no_proxy", NO_PROXY_CASES)
def test_our_reading_is_httpxs(monkeypatch: pytest.MonkeyPatch, no_proxy: str) -> None:
    from httpx2._utils import get_environment_proxies

    monkeypatch.setenv("HTTP_PROXY", "proxy.example:3128")
    monkeypatch.setenv("HTTPS_PROXY", "http://me:s3cret@proxy.example:8080")
    monkeypatch.setenv("ALL_PROXY", "socks5://proxy.example:1080")
    monkeypatch.setenv("NO_PROXY", no_proxy)
    assert deadline._read_proxies() == get_environment_proxies()


async def test_a_proxy_whose_address_cannot_be_read_fails_only_its_requests(monkeypatch) -> None:
    """httpx cannot read `http://proxy.example:notaport` (its InvalidURL is no ValueError): the client
    is built all the same, and only the requests that proxy would carry fail, naming it."""
    from compact_agent.error_causes import connection_reason, proxy_unreached

    monkeypatch.setenv("HTTP_PROXY", "http://me:s3cret@proxy.example:notaport")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    with FakeOpenAIServer(lambda req: Reply.text("hello")) as server:
        async with deadline.deadline_client(5, httpx.AsyncClient) as client:
            await client.get(server.base_url + "/models")
            with pytest.raises(deadline.ProxyUnusable) as failed:
                await client.get("http://model.test/v1/models")
        asked = [path for _, path, _ in server.asked]
    assert asked == ["/v1/models"], asked  # the host NO_PROXY names: answered, straight
    line = proxy_unreached(failed.value, connection_reason(failed.value)[0])
    assert line == ("cannot send requests through the proxy http://***@proxy.example:notaport (HTTP_PROXY) to the "
                    "model endpoint at http://model.test/v1/models (its address cannot be read: Invalid port: "
                    "'notaport'); correct HTTP_PROXY, or unset it"), line


async def test_a_tunnel_the_proxy_opened_is_passed() -> None:
    """httpcore's trace of an attempt tells whether the proxy answered its CONNECT: after it did, a
    connection closed without answering is the endpoint's; before, or on a plain http:// request
    the proxy was to pass on, the proxy's. The request's own trace is still called."""
    seen: list[str] = []

    async def own(name: str, info: dict[str, object]) -> None:
        seen.append(name)

    https, http = httpx.Request("POST", "https://model.test/v1"), httpx.Request("POST", "http://model.test/v1")
    import httpcore2

    connect = httpcore2.Request(b"CONNECT", "http://proxy.example:3128")  # as httpcore sends it
    answered = deadline._Tunnel(own)
    await answered("http11.send_request_headers.started", {"request": connect})
    await answered("http11.receive_response_headers.complete", {"return_value": None})
    unanswered = deadline._Tunnel(deadline._Tunnel(own))  # a request sent again: watched once
    await unanswered("http11.send_request_headers.started", {"request": connect})
    await unanswered("http11.receive_response_headers.failed", {"exception": None})
    assert answered.passed(https) and not unanswered.passed(https)
    assert deadline._Tunnel(None).passed(https) and not deadline._Tunnel(None).passed(http)
    assert seen == ["http11.send_request_headers.started", "http11.receive_response_headers.complete",
                    "http11.send_request_headers.started", "http11.receive_response_headers.failed"]


@pytest.mark.parametrize(("first", "then", "used"), [
    ("HTTP_PROXY", "Http_Proxy", "Http_Proxy"),  # neither read last: the one set last wins
    ("Http_Proxy", "HTTP_PROXY", "HTTP_PROXY"),
    ("HTTP_PROXY", "http_proxy", "http_proxy"),  # the lowercase one is read last: it wins
    ("http_proxy", "HTTP_PROXY", "http_proxy"),
])
async def test_the_variable_named_is_the_one_used(monkeypatch, first: str, then: str, used: str) -> None:
    """Two spellings of a variable naming two proxies: the line names the one whose proxy was tried."""
    import socket

    ports = []
    for _ in range(2):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            ports.append(s.getsockname()[1])  # nothing listens there once closed
    monkeypatch.setenv(first, f"http://127.0.0.1:{ports[0]}")
    monkeypatch.setenv(then, f"http://127.0.0.1:{ports[1]}")
    async with deadline.deadline_client(5, httpx.AsyncClient) as client:
        with pytest.raises(httpx.ConnectError) as failed:
            await client.get("http://model.test/v1/models")
    shown, variable = deadline.proxy_noted(failed.value)
    assert (shown, variable) == (os.environ[used], used)
