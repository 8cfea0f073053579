"""A server given in OPENAI_BASE_URL wants OPENAI_API_KEY, as OpenAI's own address does, while the
same address given with --base-url needs no key. That is as documented, but the line that refused
the run said only that OPENAI_API_KEY was not set: it now says how to go on without a key."""

from __future__ import annotations

from tests.fakes.openai_server import FakeOpenAIServer, Reply

MISSING = "compact-agent: OPENAI_API_KEY is not set (or pass --api-key)"


def test_the_missing_key_line_names_base_url_for_a_server_in_the_variable(cli) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("answered without a key")) as server:
        run = cli("-p", "hi", "--model", "fake-model", env={"OPENAI_BASE_URL": server.base_url})
        assert run.code == 1 and run.stdout == "", run.stderr
        assert run.stderr.strip() == (f"{MISSING}; OPENAI_BASE_URL is set: for a server there that needs no key, "
                                      f"pass --base-url {server.base_url} instead"), run.stderr
        advised = cli("-p", "hi", "--model", "fake-model", "--base-url", server.base_url,
                      env={"OPENAI_BASE_URL": server.base_url})  # what the line says to do: it runs
        assert advised.code == 0 and "answered without a key" in advised.stdout, advised.stderr


def test_a_password_in_the_variable_is_not_shown_and_without_it_the_line_is_as_before(cli) -> None:
    run = cli("-p", "hi", "--model", "fake-model", env={"OPENAI_BASE_URL": "http://user:s3cret-pw@127.0.0.1:9/v1"})
    assert run.code == 1 and "pass --base-url http://user:***@127.0.0.1:9/v1 instead" in run.stderr, run.stderr
    assert "s3cret-pw" not in run.stderr
    plain = cli("-p", "hi", "--model", "fake-model", env={"OPENAI_BASE_URL": ""})
    assert plain.code == 1 and plain.stderr.splitlines()[-1] == MISSING, plain.stderr  # under the routing note
