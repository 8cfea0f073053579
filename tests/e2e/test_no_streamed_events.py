"""A --base-url where a web server answers a POST with 200 and its page (a web UI's port given as the
API's), or where a proxy answers 200 with nothing: the stream holds none of the API's events. The
line said it in pydantic-ai's words, as if the model had answered: 'the model replied with something
unusable: Streamed response ended without content or tool calls', nothing to check, and no word of
the session. Now what answered, the address to check, and that the session is saved."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler

import pytest

from tests.fakes.site import serving

PAGE = b"<!DOCTYPE html>\n<html><head><title>Open WebUI</title></head><body><div id='app'></div></body></html>\n"


def answering(body: bytes, content_type: str) -> type[BaseHTTPRequestHandler]:
    class Site(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            self.rfile.read(int(self.headers.get("content-length", 0)))
            self.send_response(200)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST  # noqa: N815 - the model list and window probes get the page too

        def log_message(self, *args: object) -> None:
            """Quiet: what the test reads is the CLI's output, not the server's log."""

    return Site


@pytest.mark.parametrize(("body", "content_type"), [(PAGE, "text/html"), (b"", "text/event-stream")],
                         ids=["web page", "empty"])
def test_a_reply_with_no_event_says_what_answered_and_the_address_to_check(cli, body, content_type) -> None:
    with serving(answering(body, content_type)) as url:
        res = cli("-p", "hi", "--model", "local", "--base-url", url)
    assert res.code == 1 and res.stdout == ""
    [line] = res.stderr.splitlines()
    assert line.startswith(
        "compact-agent: the model endpoint answered with none of the API's streamed events (a web page or an empty "
        "reply: no model API answered there); check that --base-url is the server's API address (it often ends in "
        "/v1); the session is saved: `compact-agent "), line
    assert "Streamed response" not in line and "unusable" not in line
