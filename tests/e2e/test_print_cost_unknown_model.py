"""`-p --output-format json` says `total_cost_usd: null` for a model without a known price whether
or not a request was answered: a run whose endpoint could not be reached said 0.0 (its report held
no request, so no model of unknown price), while the same model's successful run said null. A
known model that made no request did cost $0, and says so."""

from __future__ import annotations

import socket

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .test_print_prompt_saved_early import fake


def unreachable() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"


def test_an_unreachable_endpoint_of_an_unpriced_model_costs_null_as_its_success_does(cli):
    failed = cli("-p", "hi", "--model", "fake-model", "--base-url", unreachable(), "--api-key", "k",
                 "--output-format", "json")
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        done = cli("-p", "hi", *fake(server), "--output-format", "json")
    assert failed.code == 1 and failed.json()["is_error"] is True and failed.json()["num_turns"] == 0
    assert done.code == 0 and done.json()["is_error"] is False
    assert failed.json()["total_cost_usd"] is None and done.json()["total_cost_usd"] is None


def test_a_known_model_that_made_no_request_cost_nothing(cli):
    failed = cli("-p", "hi", "--model", "deepseek-chat", "--base-url", unreachable(), "--api-key", "k",
                 "--output-format", "json")
    assert failed.code == 1 and failed.json()["total_cost_usd"] == 0.0


def test_a_slash_command_of_an_unpriced_model_costs_null(cli):
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        res = cli("-p", "/cost", *fake(server), "--output-format", "json")
    assert res.code == 0 and res.json()["num_turns"] == 0 and res.json()["total_cost_usd"] is None


def test_cost_of_a_new_session_of_an_unpriced_model_is_unknown(cli):
    """`-p /cost` before any request said `$0.0000 │ total` of a model whose prices are unknown,
    where the same session one request later (and `-c -p /cost`) said `unknown` and why. Before
    any request it is one line, which says the prices are unknown."""
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        new = cli("-p", "/cost", *fake(server))
    known = cli("-p", "/cost", "--model", "deepseek-chat", "--base-url", unreachable(), "--api-key", "k")
    assert new.code == 0 and "$0.0000" not in new.stdout and "unknown" in new.stdout
    assert "prices unknown for fake-model" in new.stdout
    assert known.code == 0 and "nothing spent" in known.stdout and "unknown" not in known.stdout
