"""A request that reaches no server said `cannot reach the model endpoint at URL (Connection
error.)` whatever happened: the SDKs' words. The line says what the transport found, with what to
do about it: nothing listening there, a server that hung up without answering, TLS spoken to a
plain-HTTP server, a host name that does not resolve."""

from __future__ import annotations

import socket
import threading

from pydantic_ai.exceptions import ModelConnectionError

from compact_agent.error_text import describe_error
from tests.fakes.openai_server import FakeOpenAIServer, Reply

START = "compact-agent: cannot reach the model endpoint at "


def run(cli, url: str):
    res = cli("-p", "hi", "--model", "fake-model", "--base-url", url, "--api-key", "k")
    assert res.code == 1 and res.stdout == "", (res.code, res.stdout)
    [line] = res.stderr.splitlines()
    assert line.startswith(START + url) and "Connection error" not in line and "Error" not in line, line
    return line


def test_nothing_listening_is_said(cli) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # free once closed: nothing listens there
    line = run(cli, f"http://127.0.0.1:{port}/v1")
    assert "(connection refused: nothing listens at that address and port); start the server there, or correct " \
           "the address" in line, line


def test_a_server_that_hangs_up_is_said(cli) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(20)
    stop = threading.Event()

    def hang_up() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                conn.recv(65_536)

    threading.Thread(target=hang_up, daemon=True).start()
    try:
        line = run(cli, f"http://127.0.0.1:{server.getsockname()[1]}/v1")
    finally:
        stop.set()
        server.close()
    assert "(the server there closed the connection without answering); check that it is up and serves this " \
           "API there" in line, line


def test_tls_to_a_plain_http_server_is_said(cli) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        url = server.base_url.replace("http://", "https://")
        line = run(cli, url)
        assert not server.requests
    assert "(the server there does not speak TLS); give its address with http://, not https://" in line, line


def test_a_name_that_does_not_resolve_is_said() -> None:
    error = ModelConnectionError("fake-model", "Connection error.")
    error.__cause__ = socket.gaierror(-2, "Name or service not known")
    said = describe_error(error, retry_hint="")
    assert said.startswith("cannot reach the model endpoint (its host name does not resolve); check the address "
                           "and the network"), said


def test_a_providers_base_url_variable_without_a_scheme_is_named(cli) -> None:
    """OPENAI_BASE_URL and ANTHROPIC_BASE_URL are read by the providers' clients, not checked as
    --base-url is: one without http:// (`localhost:8080/v1`, or set empty to "unset" it) said
    `(Request URL is missing an 'http://' or 'https://' protocol.); check the network`."""
    for model, variable, value, shown in [("gpt-4o", "OPENAI_BASE_URL", "localhost:8080/v1", "localhost:8080/v1"),
                                          ("claude-haiku-4-5", "ANTHROPIC_BASE_URL", "", ""),
                                          ("gpt-4o", "OPENAI_BASE_URL", "me:s3cret@host:8080/v1", "host:8080/v1")]:
        key = "OPENAI_API_KEY" if variable.startswith("OPENAI") else "ANTHROPIC_API_KEY"
        res = cli("-p", "hi", "--model", model, env={variable: value, key: "sk-test"})
        assert res.code == 1 and res.stdout == "", (res.code, res.stdout)
        [line] = res.stderr.splitlines()
        assert "s3cret" not in line, line
        assert line.startswith(f"compact-agent: cannot reach the model endpoint ({variable}={shown!r} is no "
                               "http:// or https:// address); the provider's client sends its requests there: "
                               "give the server's address, or unset it"), line
        assert "protocol" not in line and "network" not in line, line
