"""A session resumed with `-c` / `-r ID` runs with the command-line options it was started with
(`--model`, `--base-url`, `--context-window`, `--max-turns`, `--append-system-prompt`): a session
started with `--context-window 16k` and resumed with plain `-c` ran at the model's full window. An
option given again wins, and its new value is what the session remembers from then on."""

from __future__ import annotations

import json

from tests.fakes.openai_server import FakeOpenAIServer, Reply, message_text

from .scripted import is_summary_request


def init(res) -> dict:
    first = json.loads(res.stdout.splitlines()[0])
    assert first["type"] == "init", res.stdout
    return first


def answers(req) -> Reply:
    return Reply.text("<summary>the work so far</summary>" if is_summary_request(req) else "ok " * 300)


def system_text(req) -> str:
    return "\n".join(message_text(m) for m in req.messages if m.get("role") == "system")


def test_plain_continue_keeps_the_window_model_and_endpoint_it_was_started_with(cli):
    stream = ("--output-format", "stream-json")
    with FakeOpenAIServer(answers) as server:
        start = cli("-p", "hello", "--model", "fake-model", "--base-url", server.base_url, "--api-key", "k",
                    "--context-window", "16k", "--append-system-prompt", "ALWAYS SAY PELICAN", *stream)
        plain = cli("-c", "-p", "go on", "--api-key", "k", *stream)
        sid = init(start)["session_id"]
        by_id = cli("-r", sid[:15], "-p", "and more", "--api-key", "k", *stream)
        wider = cli("-c", "-p", "wider now", "--api-key", "k", "--context-window", "20k", *stream)
        after = cli("-c", "-p", "still wider?", "--api-key", "k", *stream)
    for res in (start, plain, by_id, wider, after):
        assert res.code == 0, res.stdout + res.stderr
    assert init(start)["window"] == 16_000
    for res in (plain, by_id):
        got = init(res)
        assert (got["session_id"], got["model"], got["window"]) == (sid, "fake-model", 16_000), got
    assert init(wider)["window"] == 20_000 and init(after)["window"] == 20_000  # given again: remembered
    assert len(server.requests) == 5  # every run reached the endpoint it was started with
    assert all("ALWAYS SAY PELICAN" in system_text(r) for r in server.requests)


def test_the_options_outlive_a_compaction(cli):
    with FakeOpenAIServer(answers) as server:
        base = ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")
        assert cli("-p", "hello", *base, "--context-window", "16k").code == 0
        for _ in range(3):
            assert cli("-c", "-p", "tell me more", *base).code == 0
        compact = cli("-c", "-p", "/compact", *base, "--output-format", "json")
        assert compact.code == 0 and compact.json()["compactions"], compact.stdout + compact.stderr
        later = cli("-c", "-p", "go on", "--api-key", "k", "--output-format", "stream-json")
    assert later.code == 0, later.stderr
    assert init(later)["window"] == 16_000 and init(later)["model"] == "fake-model"


def test_another_model_does_not_take_the_window_given_for_the_first(cli):
    """A window (and an endpoint) belongs to the model it was given for: `-c --model other` runs
    that model at its own window; what it was given with is remembered in turn."""
    with FakeOpenAIServer(answers) as first, FakeOpenAIServer(answers, model="other-model") as second:
        assert cli("-p", "hello", "--model", "fake-model", "--base-url", first.base_url, "--api-key", "k",
                   "--context-window", "16k").code == 0
        other = cli("-c", "-p", "go on", "--model", "other-model", "--base-url", second.base_url, "--api-key", "k",
                    "--output-format", "stream-json")
        again = cli("-c", "-p", "go on", "--api-key", "k", "--output-format", "stream-json")
    assert other.code == 0 and again.code == 0, other.stderr + again.stderr
    for res in (other, again):
        assert (init(res)["model"], init(res)["window"]) == ("other-model", 32_768), init(res)
    assert len(first.requests) == 1 and len(second.requests) == 2


def test_a_new_session_and_one_started_without_options_remember_nothing(cli):
    with FakeOpenAIServer(answers) as server:
        base = ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")
        assert cli("-p", "first", *base, "--context-window", "16k").code == 0
        fresh = cli("-p", "second", *base, "--output-format", "stream-json")  # a new session: its own options
    assert fresh.code == 0, fresh.stderr
    assert init(fresh)["window"] == 32_768 and not init(fresh)["resumed"]
