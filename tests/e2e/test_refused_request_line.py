"""An HTTP 400 (a request the provider refuses as it is: a parameter, a content the model does not
take) ended `-p` with 'the provider answered HTTP 400: ...' and nothing more, while a 500, a 429, a
dropped connection or a torn stream say the session is saved. The session and the prompt are saved
after a 400 too (`-c` goes on with it), so the line says so; it offers no retry of the same request,
which would only be refused again (it said so, then offered `compact-agent -c -p ...`, which is one),
but what could change: what the provider's message names, or the prompt."""

from __future__ import annotations

from pydantic_ai.exceptions import ModelHTTPError

from compact_agent.error_text import describe_error
from tests.fakes.openai_server import FakeOpenAIServer, Reply, user_messages

from .test_print_prompt_saved_early import fake

REFUSED = "Invalid value for 'temperature'."
SAID = ("compact-agent: the provider answered HTTP 400: Invalid value for 'temperature'; the session is saved "
        "with the prompt; sent as it is, it would be refused again: change what the provider's message names "
        "(--model, a setting) and `compact-agent -c -p ...` continues it, or send another prompt without -c\n")


def refuses_otter(req) -> Reply:
    if req.last_user_text() == "remember OTTER":
        return Reply.error(400, {"error": {"message": REFUSED, "type": "invalid_request_error"}})
    return Reply.text("ok")


def test_a_400_says_the_session_and_the_prompt_are_saved_and_offers_no_retry(cli):
    with FakeOpenAIServer(refuses_otter) as server:
        failed = cli("-p", "remember OTTER", *fake(server))
        as_json = cli("-p", "remember OTTER", *fake(server), "--output-format", "json")
        again = cli("-c", "-p", "go on", *fake(server))
    assert failed.code == 1 and failed.stdout == "" and failed.stderr == SAID
    assert as_json.code == 1 and as_json.json()["error"] == SAID.removeprefix("compact-agent: ").rstrip("\n")
    assert again.code == 0, again.stderr  # what the line says: the prompt is in the session
    assert [m["content"] for m in user_messages(server.requests[-1])] == ["remember OTTER", "go on"]


def test_the_repl_line_of_a_400_says_the_message_is_saved_and_that_resending_it_is_no_retry():
    line = describe_error(ModelHTTPError(400, "m", {"error": {"message": REFUSED}}))
    assert line == ("the provider answered HTTP 400: Invalid value for 'temperature'; the session is saved with "
                    "your message; sent as it is, it would be refused again: change what the provider's message "
                    "names (/model switches the model), or /rewind takes your message back to edit")
    assert "send it again" not in line


def test_a_passing_4xx_the_sdk_retried_offers_the_retry_as_a_5xx_does():
    line = describe_error(ModelHTTPError(409, "m", {"error": {"message": "conflict"}}))
    assert line == ("the provider answered HTTP 409, after retries: conflict; the session is saved with your message: "
                    "send it again (↑ Enter) to retry")


def test_a_line_without_hints_stays_without_one():
    """`analyze --model`'s summarizer asks for no hint (retry_hint=""): a 400 gets none either."""
    assert describe_error(ModelHTTPError(400, "m", {"error": {"message": "bad"}}), retry_hint="") == \
        "the provider answered HTTP 400: bad"
