"""A plain HTTP site on 127.0.0.1 (not a model API): what a `--base-url` pointing at a web server's
port, a web UI's or a proxy's, reaches. The tests that check what the CLI says there serve their own
request handler with `serving`."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@contextlib.contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """`handler` answering on a free port of 127.0.0.1, in a thread, until the block ends; yields
    the `/v1` address under it, as a --base-url names an API."""
    site = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{site.server_address[1]}/v1"
    finally:
        site.shutdown()
        site.server_close()
