"""A session's id given where the prompt goes (`compact-agent -c ID`, meaning `-r ID`) is one line
saying how to resume it, exit 2, and nothing is sent: `-c` continued the newest session, another
than the one named, and sent the id to the model as a paid message. After `--` it is a prompt."""

from __future__ import annotations

import json

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply

ID = "20261207-082306-37d5df"


@pytest.mark.parametrize(("args", "said"), [
    (("-c", ID), f"'{ID}' is a session id, not a prompt: compact-agent -r {ID} resumes it "
                 f"(to send it as a prompt: compact-agent -- {ID})"),
    (("-c", "-p", ID), f"'{ID}' is a session id, not a prompt: compact-agent -r {ID} -p \"QUERY\" continues it "
                       f"(to send it as a prompt: compact-agent -p -- {ID})"),
    (("-p", "20261207-082306"), "'20261207-082306' is a session id, not a prompt: compact-agent -r 20261207-082306 "
                                "-p \"QUERY\" continues it (to send it as a prompt: compact-agent -p -- 20261207-082306)"),
])
def test_a_session_id_as_the_prompt_is_one_line_and_nothing_is_sent(cli, args, said):
    with FakeOpenAIServer(lambda r: Reply.text("ok")) as server:
        first = cli("-p", "hi", "-m", "fake-model", "--api-key", "k", "--base-url", server.base_url)
        assert first.code == 0, first.stderr
        res = cli(*args, "-m", "fake-model", "--api-key", "k", "--base-url", server.base_url)
        assert (res.code, res.stderr, res.stdout) == (2, f"compact-agent: {said}\n", "")
        assert len(server.requests) == 1 and len(cli.sessions()) == 1


def test_asked_for_json_the_line_is_the_error_object_and_after_dashes_it_is_a_prompt(cli):
    res = cli("-p", ID, "--output-format", "json")
    assert res.code == 2 and json.loads(res.stdout)["error"] == res.stderr.removeprefix("compact-agent: ").strip()
    with FakeOpenAIServer(lambda r: Reply.text("ok")) as server:
        sent = cli("-p", "-m", "fake-model", "--api-key", "k", "--base-url", server.base_url, "--", ID)
        assert sent.code == 0 and ID in server.requests[0].all_text(), sent.stderr
        words = cli("-p", f"{ID} broke the build", "-m", "fake-model", "--api-key", "k", "--base-url", server.base_url)
        assert words.code == 0, words.stderr  # an id among other words is a prompt
