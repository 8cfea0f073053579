"""A session saved while a key was not in use (a local server, the key pasted into a prompt or read
from a file) and resumed with that key in use sends it in no request and shows it nowhere: the
history loaded from the file went to the provider as saved, the key whole."""

from __future__ import annotations

import json

from tests.fakes.openai_server import FakeOpenAIServer, Reply

KEY = "sk-test-0123456789abcdef0123456789abcdef"


def test_a_resumed_session_sends_no_key_that_is_in_use_now(cli):
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        flags = ("--model", "fake-model", "--base-url", server.base_url)
        first = cli("-p", f"my key is {KEY}", *flags, "--api-key", "k")  # too short to be a key: none in use
        assert first.code == 0 and any(KEY in p.read_text() for p in cli.sessions()), first.stderr
        resumed = cli("-c", "-p", "go on", *flags, "--output-format", "stream-json", env={"OPENAI_API_KEY": KEY})
    assert resumed.code == 0, resumed.stderr
    sent = json.dumps(server.requests[-1].messages)
    assert KEY not in sent and "my key is [REDACTED]" in sent
    assert KEY not in resumed.stdout + resumed.stderr
