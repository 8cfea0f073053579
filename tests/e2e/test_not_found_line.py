"""HTTP 404 from the model endpoint is one line naming the address tried and what to check.

A proxy (or a server with no such path) that answers 404 with an empty body gave 'the provider
answered HTTP 404: status_code: 404, model_name: m, body: ', the SDK's error as it is, and no
word of where the request went or what to look at."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.e2e.conftest import Cli
from tests.fakes.openai_server import FakeOpenAIServer, Fault, Reply

HINT = "and that --base-url is the server's API address (it often ends in /v1)"


class _EmptyNotFound(BaseHTTPRequestHandler):
    """Every request: 404 with an empty body, as a proxy in front of nothing answers."""

    def _answer(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.send_response(404)
        self.send_header("content-length", "0")
        self.end_headers()

    do_GET = do_POST = _answer

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def empty_404() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _EmptyNotFound)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "status_code" not in lines[0] and "Error" not in lines[0] and "Traceback" not in stderr
    return lines[0]


def test_an_empty_404_names_the_address_and_what_to_check(cli: Cli) -> None:
    with empty_404() as url:
        r = cli("-p", "hi", "--base-url", url, "-m", "m", "--api-key", "k")
    assert r.code == 1
    assert one_line(r.stderr) == (f"compact-agent: the model endpoint at {url}/chat/completions answered HTTP 404 "
                                  f"(not found), no error message; check the model name (-m m) {HINT}")


def test_a_404_with_the_servers_message_says_it_with_the_address(cli: Cli) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("ok"), model="served") as server:
        url = server.base_url
        r = cli("-p", "hi", "--base-url", url, "-m", "other", "--api-key", "k")
    assert r.code == 1
    assert one_line(r.stderr) == (f"compact-agent: the model endpoint at {url}/chat/completions answered "
                                  "HTTP 404: The model `other` does not exist or you do not have access to it; "
                                  f"check the model name (-m other) {HINT}; the server serves served")



def test_a_404_for_a_model_the_server_lists_does_not_say_to_check_the_name(cli: Cli) -> None:
    """A proxy that answers 404 for the chat path of a server that lists the model: the line said to
    check the model name (-m fake-model) and that the server serves fake-model."""
    with FakeOpenAIServer(lambda req: Reply.text("ok"), faults=lambda req, attempt: Fault.http(404)) as server:
        r = cli("-p", "hi", "--base-url", server.base_url, "-m", "fake-model", "--api-key", "k")
    assert r.code == 1
    line = one_line(r.stderr)
    assert "check the model name" not in line, line
    assert line.endswith("; the server lists fake-model, so check that --base-url is its API address (it often "
                         "ends in /v1) and what is between them (a proxy)"), line


def test_the_models_a_server_lists_are_named_under_its_404_for_the_default_one(cli: Cli) -> None:
    """A first run against a local server without -m asks for deepseek-chat: the line names what the
    server's GET /v1/models lists, where it said only to check the name. A server that does not
    list them (the empty 404 above) gets the line as before."""
    with FakeOpenAIServer(lambda req: Reply.text("ok"), model="Qwen/Qwen2.5-Coder-7B-Instruct") as server:
        r = cli("-p", "hi", "--base-url", server.base_url, "--api-key", "k")
    assert r.code == 1
    assert one_line(r.stderr).endswith("; the server serves Qwen/Qwen2.5-Coder-7B-Instruct"), r.stderr


def test_a_long_list_is_cut_with_how_many_more() -> None:
    from compact_agent.error_notes import note_served_models, served_words

    e = RuntimeError("404")
    note_served_models(e, [f"m{i}" for i in range(11)])
    assert served_words(e) == "; the server serves m0, m1, m2, m3, m4, m5, m6, m7 and 3 more"
    assert served_words(RuntimeError("404")) == ""
