"""A session line holding a URL to a file is an unreadable line, not a request that fails or a fetch.

The agent attaches files by their bytes and never writes a part that names a file by URL
(`document-url`, `image-url`, …). A damaged or planted session file holding one made every `-c`
fail, blamed on the provider ("the model endpoint sent a reply in a shape this agent cannot read"),
and `/compact` end in pydantic-ai's words. Now such a line is set aside like a line whose message
cannot be read, with one warning, and the session goes on.
"""

from __future__ import annotations

import json

import pytest

from tests.e2e.conftest import Cli
from tests.fakes.openai_server import FakeOpenAIServer, Reply


@pytest.mark.parametrize("url", [
    {"kind": "document-url", "url": "file:///etc/passwd"},
    {"kind": "document-url", "url": "http://127.0.0.1:9/latest/meta-data/credentials.pdf"},
    {"kind": "image-url", "url": "http://127.0.0.1:9/x.png"},
])
def test_a_session_line_with_a_url_part_is_skipped_and_the_session_goes_on(cli: Cli, url: dict) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        base = ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")
        assert cli("-p", "first", *base).code == 0
        [session] = cli.sessions()
        last = json.loads(session.read_text().splitlines()[-1])
        planted = {"v": 1, "id": "planted", "parent": last["id"], "time": last["time"], "kind": "message",
                   "message": {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": [url]}]}}
        with session.open("a") as f:
            f.write(json.dumps(planted) + "\n")
        run = cli("-c", "-p", "again", *base)
        compacted = cli("-c", "-p", "/compact", *base)
    assert run.code == 0 and run.stdout.strip() == "ok", run.stdout + run.stderr
    # set aside as any unreadable line, said once
    assert "1 unreadable line of" in run.stderr and "taken out of it" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr and "unreadable" not in compacted.stderr, run.stderr + compacted.stderr
    assert not [r for r in server.requests if url["url"] in r.all_text()]
    assert compacted.code == 0 and "media type" not in compacted.stderr + compacted.stdout, compacted.stderr
