"""A --base-url where a web server answers (a site, a web UI's port) sends back an HTML page, not an
API's error. The line said the page whole, tags and all, as a provider's failure to retry: 'the
provider failed (HTTP 501), after retries: <!DOCTYPE HTML> <html lang="en"> <head> <meta
charset="utf-8"> …; the session is saved: …'. Now the page's words, and the address to check."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler

import pytest
from pydantic_ai.exceptions import ModelHTTPError

from compact_agent.error_text import describe_error
from tests.fakes.site import serving

PAGE = ("<!DOCTYPE html>\n<html><head><title>Open WebUI</title><style>body {color: red}</style>"
        "<script>var x = '<b>';</script></head>\n<body><h1>Method Not Allowed</h1>\n<p>POST is not "
        "served here &amp; never was.</p></body></html>\n")


class WebSite(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers.get("content-length", 0)))
        body = PAGE.encode()
        self.send_response(405)
        self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        """Quiet: what the test reads is the CLI's output, not the server's log."""


def test_a_web_page_at_the_base_url_is_said_in_words_with_the_address_to_check(cli) -> None:
    with serving(WebSite) as url:
        res = cli("-p", "hi", "--model", "local", "--base-url", url)
    assert res.code == 1 and res.stdout == ""
    assert res.stderr.splitlines() == [
        f"compact-agent: the model endpoint at {url}/chat/completions answered HTTP 405 with a web page, not an "
        "API's error (Method Not Allowed POST is not served here & never was.); check that --base-url is the "
        "server's API address (it often ends in /v1)"]


@pytest.mark.parametrize("status", [502, 503])
def test_a_proxy_page_of_a_failing_provider_is_its_words_without_tags(status: int) -> None:
    line = describe_error(ModelHTTPError(status, "m", "<html><head><title>502</title></head><body><center>"
                                                      "<h1>502 Bad Gateway</h1></center><hr>nginx</body></html>"))
    assert line.startswith(f"the provider failed (HTTP {status}), after retries: 502 Bad Gateway nginx;"), line
