"""The proxies the environment names (`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY`, less `NO_PROXY`) carry
the agent's requests, as they carry those of the SDKs' own client: the client the agent gives them has
a transport of its own (deadline.py), for which httpx reads no proxy, so every request went straight
to the endpoint. A proxy that cannot be reached is said as the proxy, by its address without its
user and password and by the variable that named it, not as the endpoint behind it; so is one no
client can send through."""

from __future__ import annotations

import socket
import threading

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # free once closed: nothing listens there


#: An endpoint's name no resolver knows: a request for it that was answered went through the proxy.
ENDPOINT = "http://model.test/v1"


@pytest.mark.parametrize("variable", ["HTTP_PROXY", "ALL_PROXY", "http_proxy"])
def test_a_proxy_that_cannot_be_reached_is_named(cli, variable: str) -> None:
    port = closed_port()
    res = cli("-p", "hi", "--model", "fake-model", "--base-url", ENDPOINT, "--api-key", "k",
              env={variable: f"http://me:s3cret@127.0.0.1:{port}"})
    assert res.code == 1 and res.stdout == "", (res.code, res.stdout)
    [line] = res.stderr.splitlines()
    assert "s3cret" not in line and "me:" not in line, line
    assert line.startswith(
        f"compact-agent: cannot reach the proxy http://***@127.0.0.1:{port} ({variable}) on the way to the model "
        f"endpoint at {ENDPOINT}/chat/completions (connection refused: nothing listens at that address and "
        f"port); start the proxy there, correct {variable}, or unset it"), line


def test_requests_go_through_the_proxy(cli) -> None:
    """The fake server as the proxy: it gets the request for the endpoint's whole address (a proxy's
    form), a name only it could resolve, with the proxy's credentials in their own header, never
    sent on to the endpoint."""
    with FakeOpenAIServer(lambda req: Reply.text("hello")) as proxy:
        at = proxy.base_url.removeprefix("http://").partition("/")[0]
        res = cli("-p", "hi", "--model", "fake-model", "--base-url", ENDPOINT, "--api-key", "k",
                  env={"HTTP_PROXY": f"http://me:s3cret@{at}"})
        posts = [(path, headers) for method, path, headers in proxy.asked if method == "POST"]
    assert posts and all(path == f"{ENDPOINT}/chat/completions" for path, _ in posts), posts
    assert all("proxy-authorization" in {k.lower() for k in headers} for _, headers in posts), posts
    assert res.code == 1 and "s3cret" not in res.stderr, res.stderr  # the fake server serves no such path


def test_no_proxy_sends_a_host_straight_to_it(cli) -> None:
    res = cli("-p", "hi", "--model", "fake-model", "--base-url", ENDPOINT, "--api-key", "k",
              env={"HTTP_PROXY": f"http://127.0.0.1:{closed_port()}", "NO_PROXY": "model.test"})
    assert res.code == 1, res.stderr
    [line] = res.stderr.splitlines()
    assert "proxy" not in line and f"{ENDPOINT}/chat/completions (its host name does not resolve)" in line, line


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_a_server_on_this_machine_is_never_proxied(cli, host: str) -> None:
    """A llama.cpp, vLLM or Ollama on loopback goes straight, though no NO_PROXY names it."""
    dead = f"http://127.0.0.1:{closed_port()}"
    with FakeOpenAIServer(lambda req: Reply.text("hello")) as server:
        res = cli("-p", "hi", "--model", "fake-model", "--base-url", server.base_url.replace("127.0.0.1", host),
                  "--api-key", "k", env={"HTTP_PROXY": dead, "HTTPS_PROXY": dead, "ALL_PROXY": dead})
        assert len(server.requests) == 1
    assert (res.code, res.stdout.strip()) == (0, "hello"), res.stderr


def test_an_https_endpoint_is_tunnelled(cli) -> None:
    """Through HTTPS_PROXY an https endpoint is asked for with CONNECT host:443: the proxy sees no
    path, no header of the request and never the key. It refuses the tunnel here, said as the proxy's."""
    listener, got = raw_proxy(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
    with listener:
        port = listener.getsockname()[1]
        res = cli("-p", "hi", "--model", "fake-model", "--base-url", "https://model.test/v1",
                  env={"OPENAI_API_KEY": "sk-NEVER-IN-CLEAR", "HTTPS_PROXY": f"http://127.0.0.1:{port}"})
    assert got and all(g.startswith(b"CONNECT model.test:443 HTTP/1.1\r\n") for g in got), got
    assert not any(b"NEVER-IN-CLEAR" in g or b"chat/completions" in g for g in got), got
    [line] = res.stderr.splitlines()
    assert line.startswith(f"compact-agent: the proxy http://127.0.0.1:{port} (HTTPS_PROXY) did not open a "
                           "connection to the model endpoint at https://model.test/v1/chat/completions"), line


def test_a_proxy_of_a_scheme_no_client_sends_through_is_said(cli) -> None:
    res = cli("-p", "hi", "--model", "fake-model", "--base-url", ENDPOINT, "--api-key", "k",
              env={"HTTP_PROXY": "ftp://me:s3cret@proxy.example:21"})
    assert res.code == 1 and "s3cret" not in res.stderr, res.stderr
    [line] = res.stderr.splitlines()
    assert line.startswith(
        "compact-agent: cannot send requests through the proxy ftp://***@proxy.example:21 (HTTP_PROXY) to the model "
        f"endpoint at {ENDPOINT}/chat/completions (a proxy's address starts with http://, https://, "
        "socks5:// or socks5h://); correct HTTP_PROXY, or unset it"), line


@pytest.mark.parametrize("address", ["http://me:s3cret@proxy.example:notaport", "http://me:s3cret@proxy.example:8080/\x01"])
def test_a_proxy_whose_address_cannot_be_read_is_said(cli, address: str) -> None:
    """httpx cannot read it (its InvalidURL is no ValueError): one line naming the variable and the
    address, its password left out, where it was 'compact-agent: Invalid port: 'notaport''."""
    res = cli("-p", "hi", "--model", "fake-model", "--base-url", "http://model.test/v1", "--api-key", "k",
              env={"HTTP_PROXY": address})
    assert res.code == 1 and res.stdout == "" and "s3cret" not in res.stderr, res.stderr
    [line] = res.stderr.splitlines()
    shown = address.replace("me:s3cret", "***").replace("\x01", "\\x01")  # a control character shown escaped
    assert line.startswith(
        f"compact-agent: cannot send requests through the proxy {shown} (HTTP_PROXY) to the model endpoint at "
        "http://model.test/v1/chat/completions (its address cannot be read: "), line
    assert "); correct HTTP_PROXY, or unset it" in line, line


def raw_proxy(answer: bytes = b"") -> tuple[socket.socket, list[bytes]]:
    """A proxy that takes each connection, reads what it is asked, sends `answer` (none: it hangs up
    without a word) and closes it."""
    got: list[bytes] = []
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                got.append(conn.recv(65536))
                conn.sendall(answer)

    threading.Thread(target=serve, daemon=True).start()
    return listener, got


@pytest.mark.parametrize("endpoint", ["https://model.test/v1", ENDPOINT])
def test_a_proxy_that_hangs_up_is_said_as_the_proxy(cli, endpoint: str) -> None:
    """Closed without answering the CONNECT (or the request it was to pass on): the proxy hung up,
    not the endpoint, which nothing reached."""
    listener, got = raw_proxy()
    with listener:
        port = listener.getsockname()[1]
        variable = "HTTPS_PROXY" if endpoint.startswith("https") else "HTTP_PROXY"
        res = cli("-p", "hi", "--model", "fake-model", "--base-url", endpoint, "--api-key", "k",
                  env={variable: f"http://127.0.0.1:{port}"})
    assert got, "the proxy was never asked"
    line = res.stderr.splitlines()[-1]
    assert line.startswith(
        f"compact-agent: the proxy http://127.0.0.1:{port} ({variable}) closed the connection without answering, "
        f"on the way to the model endpoint at {endpoint}/chat/completions; check that a proxy serves there (its "
        f"log may say why), correct {variable}, or unset it"), line
