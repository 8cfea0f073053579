"""A model or an endpoint a session file remembers that cannot be used (an empty `model`, a
`base_url` that is no http address: a hand-edited or damaged file) is said as the session's and
left out, as a bad window is (test_remembered_bad_values.py): `-r ID` stopped with exit 2 and a line
blaming flags nobody gave (`--model needs a model name …, not an empty one`, `--base-url: 'ftp://x'
is not an http:// or https:// address`), so the session could not be resumed at all."""

from __future__ import annotations

import json

import pytest

from tests.e2e.test_remembered_bad_values import spoil
from tests.e2e.test_remembered_base_url import remembered_line
from tests.fakes.openai_server import FakeOpenAIServer, Reply

NO_HTTP = "is not an http:// or https:// address (e.g. http://localhost:8000/v1)"


@pytest.mark.parametrize(("value", "problem"), [("", "an empty name"), ("  ", "an empty name")])
def test_an_empty_remembered_model_is_said_and_the_session_goes_on_with_the_default(cli, value, problem) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("ok"), model="deepseek-chat") as server:
        url = server.base_url
        first = cli("-p", "hello", "--model", "deepseek-chat", "--base-url", server.base_url, "--api-key", "k",
                    "--output-format", "stream-json")
        sid = json.loads(first.stdout.splitlines()[0])["session_id"]
        [path] = cli.home.rglob(f"{sid}.jsonl")
        spoil(path, model=value)
        again = cli("-r", sid, "-p", "hi", "--api-key", "k")
        after = cli("-r", sid, "-p", "and again", "--api-key", "k")
    assert again.code == 0, again.stderr
    assert again.stderr.splitlines() == [f"compact-agent: note: bad value for model (remembered by session {sid}): "
                                         f"{problem}; the session goes on with the default; {remembered_line(url)}"]
    assert again.stdout == "ok\n"  # deepseek-chat, at the endpoint the session remembers
    assert after.code == 0 and after.stderr == f"compact-agent: note: {remembered_line(url)}\n"  # said once


@pytest.mark.parametrize("value", ["ftp://x", ""])
def test_a_remembered_endpoint_that_is_no_address_is_said_and_left_out(cli, value) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        first = cli("-p", "hello", "--model", "fake-model", "--base-url", server.base_url, "--api-key", "k",
                    "--output-format", "stream-json")
        sid = json.loads(first.stdout.splitlines()[0])["session_id"]
        [path] = cli.home.rglob(f"{sid}.jsonl")
        spoil(path, base_url=value)
        env = {"COMPACT_AGENT_BASE_URL": server.base_url}  # where the session goes without it
        again = cli("-r", sid, "-p", "hi", "--api-key", "k", env=env)
    assert again.code == 0, again.stderr
    assert again.stderr.splitlines() == [
        f"compact-agent: note: bad value for base_url (remembered by session {sid}): '{value}' {NO_HTTP}; the "
        "session goes on with the value from env COMPACT_AGENT_BASE_URL"]
    assert again.stdout == "ok\n"


@pytest.mark.parametrize(("values", "said"), [
    ({"context_window": "abc"}, 'bad value for context_window (remembered by session {sid}): "abc" is not a whole '
                                "number of tokens; the session goes on with the default"),
    ({"model": 7}, "bad value for model (remembered by session {sid}): 7 is not a model name; the session goes on "
                   "with the default"),
    ({"append_system_prompt": ["x"]}, 'bad value for append_system_prompt (remembered by session {sid}): ["x"] is '
                                      "not text; the session goes on without it"),
])
def test_a_remembered_value_of_another_kind_is_said_once_and_left_out(cli, values, said) -> None:
    """A value of a kind the option never takes was dropped without a word, and stayed in the file."""
    with FakeOpenAIServer(lambda req: Reply.text("ok"), model="deepseek-chat") as server:
        url = server.base_url
        first = cli("-p", "hello", "--model", "deepseek-chat", "--base-url", server.base_url, "--api-key", "k",
                    "--output-format", "stream-json")
        sid = json.loads(first.stdout.splitlines()[0])["session_id"]
        [path] = cli.home.rglob(f"{sid}.jsonl")
        spoil(path, **values)
        again = cli("-r", sid, "-p", "hi", "--api-key", "k")
        after = cli("-r", sid, "-p", "and again", "--api-key", "k")
    assert again.code == 0, again.stderr
    assert again.stderr.splitlines() == [f"compact-agent: note: {said.format(sid=sid)}; {remembered_line(url)}"]
    assert after.code == 0 and after.stderr == f"compact-agent: note: {remembered_line(url)}\n"  # said once
