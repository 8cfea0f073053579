"""`/config` says a setting the resumed session remembers comes from the session: a window it was
started with, resumed with plain `-c`, was said to come from a flag this command line never gave.
One given again on this command line is a flag."""

from __future__ import annotations

import re

from tests.fakes.openai_server import FakeOpenAIServer, Reply


def answer(req) -> Reply:
    return Reply.text("ok")


def source(out: str, setting: str) -> tuple[str, str]:
    """The value and source `/config` shows for `setting`."""
    found = re.search(rf"^{setting}\s+(\S+)\s+(.+?)\s*$", out, re.MULTILINE)
    assert found is not None, out
    return found[1], found[2]


def test_what_the_session_remembers_is_said_to_come_from_it(cli):
    with FakeOpenAIServer(answer) as server:
        url = server.base_url
        started = cli("-p", "hello", "--model", "fake-model", "--base-url", url, "--api-key", "k",
                      "--context-window", "16k")
        sid = cli.sessions()[0].stem
        plain = cli("-c", "-p", "/config", "--api-key", "k")
        by_id = cli("-r", sid, "-p", "/config", "--api-key", "k")
        again = cli("-c", "-p", "/config", "--api-key", "k", "--context-window", "20k")
    for res in (started, plain, by_id, again):
        assert res.code == 0, res.stdout + res.stderr
    for res in (plain, by_id):
        assert source(res.stdout, "context_window") == ("16000", "session"), res.stdout
        assert source(res.stdout, "model") == ("fake-model", "session"), res.stdout
        assert source(res.stdout, "base_url") == (url, "session"), res.stdout
    assert source(again.stdout, "context_window") == ("20000", "flag"), again.stdout
    assert source(again.stdout, "model") == ("fake-model", "session"), again.stdout
    assert source(again.stdout, "max_requests_per_turn")[1] == "default", again.stdout
