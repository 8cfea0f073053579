"""The prices a session was started with (`--prices`) belong to it as its window does: `-c` and
`-r ID` ran it unpriced (cost unknown, compactions at the threshold only) unless they were given
again. Now they are remembered, `/config` says they come from the session, one given again wins and
is remembered in turn, and they belong to the model they were given for: `-c --model other` runs
the other model at its own prices (none, for one the registry does not know)."""

from __future__ import annotations

import re

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .test_remembered_bad_values import spoil
from .test_remembered_base_url import remembered_line

GIVEN = "$1 input, $0.1 cached, $2 output per M tokens"


def answer(req) -> Reply:
    return Reply.text("ok")


def prices_row(out: str) -> str:
    """`/config`'s prices row: value | source."""
    found = re.search(r"^prices\s+(.+?)\s*$", out, re.MULTILINE)
    assert found is not None, out
    return re.sub(r"\s{2,}", " | ", found[1])


def test_plain_continue_keeps_the_prices_the_session_was_started_with(cli) -> None:
    as_json = ("--output-format", "json")
    with FakeOpenAIServer(answer) as server:
        base = ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")
        start = cli("-p", "hi", *base, "--prices", "1,0.1,2", *as_json)
        plain = cli("-c", "-p", "again", "--api-key", "k", *as_json)
        same = cli("-c", "-p", "and again", *base, *as_json)  # model and endpoint given: the same model
        shown = cli("-c", "-p", "/config", "--api-key", "k")
        by_id = cli("-r", start.json()["session_id"], "-p", "/config", "--api-key", "k")
        unanswered = cli("-c", "-p", "/config", "--api-key", "k", "--prices", "3,0.3,6")  # kept once answered
        still = cli("-c", "-p", "/config", "--api-key", "k")
        dearer = cli("-c", "-p", "dearer now", "--api-key", "k", "--prices", "3,0.3,6")
        after = cli("-c", "-p", "/config", "--api-key", "k")
    for res in (start, plain, same, shown, by_id, unanswered, still, dearer, after):
        assert res.code == 0, res.stdout + res.stderr
    for res in (start, plain, same):
        assert res.json()["total_cost_usd"] is not None and res.json()["total_cost_usd"] > 0, res.stdout
    assert prices_row(shown.stdout) == f"{GIVEN} | session"
    assert prices_row(by_id.stdout) == f"{GIVEN} | session"
    assert prices_row(unanswered.stdout) == "$3 input, $0.3 cached, $6 output per M tokens | flag"
    assert prices_row(still.stdout) == f"{GIVEN} | session"
    assert prices_row(after.stdout) == "$3 input, $0.3 cached, $6 output per M tokens | session"


def test_prices_belong_to_the_model_they_were_given_for(cli) -> None:
    with FakeOpenAIServer(answer) as first, FakeOpenAIServer(answer, model="other-model") as second:
        assert cli("-p", "hi", "--model", "fake-model", "--base-url", first.base_url, "--api-key", "k",
                   "--prices", "1,0.1,2").code == 0
        other = cli("-c", "-p", "go on", "--model", "other-model", "--base-url", second.base_url, "--api-key", "k",
                    "--output-format", "json")
        other_config = cli("-c", "-p", "/config", "--api-key", "k")
        known = cli("-r", cli.sessions()[0].stem, "-p", "/config", "--model", "deepseek-chat",
                    "--base-url", first.base_url, "--api-key", "k")
    for res in (other, other_config, known):
        assert res.code == 0, res.stdout + res.stderr
    assert other.json()["total_cost_usd"] is None, other.stdout  # unpriced: not the first model's prices
    assert prices_row(other_config.stdout) == ("none | not known: other-model is not a known model, so it compacts "
                                               "at the threshold only (set prices)")
    assert prices_row(known.stdout) == ("$0.28 input, $0.028 cached, $0.42 output per M tokens | "
                                        "the model's own (deepseek-chat)")


def test_prices_a_session_file_remembers_that_cannot_be_used_are_one_line(cli) -> None:
    with FakeOpenAIServer(answer) as server:
        base = ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")
        first = cli("-p", "hi", *base, "--prices", "1,0.1,2", "--output-format", "json")
        sid = first.json()["session_id"]
        [path] = cli.home.rglob(f"{sid}.jsonl")
        spoil(path, prices=[0.5, 1, 2])
        again = cli("-c", "-p", "go on", "--api-key", "k", "--output-format", "json")
    assert again.code == 0, again.stderr
    assert again.stderr == (f"compact-agent: note: bad value for prices (remembered by session {sid}): the cached "
                            "input price (1) is above the uncached one (0.5); a cache hit never costs more (give the "
                            "same price twice for an endpoint without a cache discount); the session goes on with "
                            f"the default; {remembered_line(base[3])}\n")
    assert again.json()["total_cost_usd"] is None  # the rest it remembers still holds: the model, its endpoint
    assert len(server.requests) == 2
