"""A --base-url server that wants a key, run without one: the line says no key was sent and names
the variable read (OPENAI_API_KEY), where a key it refuses is 'the provider rejected the API key'."""

from __future__ import annotations

from tests.fakes.openai_server import FakeOpenAIServer, Reply

KEY = "sk-the-servers-own-key-0123456789"


def test_no_key_sent_is_not_a_wrong_key(cli) -> None:
    with FakeOpenAIServer(lambda r: Reply.text("ok"), api_key=KEY) as server:
        url = server.base_url
        args = ("-p", "hi", "--base-url", url, "-m", "fake-model")
        missing = cli(*args)
        wrong = cli(*args, "--api-key", "sk-not-the-servers-key-987654321")
        given = cli(*args, env={"OPENAI_API_KEY": KEY})
    assert missing.code == 1 and wrong.code == 1 and given.code == 0, (missing.stderr, wrong.stderr, given.stderr)
    assert missing.stderr.strip() == (f"compact-agent: no API key was sent and the endpoint at {url}"
                                      "/chat/completions wants one: give --api-key or set OPENAI_API_KEY")
    assert "rejected the API key" in wrong.stderr and "no API key was sent" not in wrong.stderr
    assert KEY not in missing.stderr + wrong.stderr + given.stderr + given.stdout


def test_a_rejected_key_is_named_by_where_it_came_from_and_the_session_is_saved(cli) -> None:
    """The line said `the provider rejected the API key (check the key for this endpoint)`: not which
    key (the variable it was read from, or --api-key), nor the endpoint, nor that the session is
    saved with the prompt, as a failing server's line says. Then it gave an HTTP 400's advice,
    'sent as it is, it would be refused again: change what the provider's message names (--model, a
    setting)': now to give another key where this one came from."""
    with FakeOpenAIServer(lambda r: Reply.text("ok"), api_key=KEY) as server:
        url = server.base_url
        args = ("-p", "hi", "--base-url", url, "-m", "fake-model")
        from_env = cli(*args, env={"OPENAI_API_KEY": "sk-not-the-servers-key-987654321"})
        given = cli(*args, "--api-key", "sk-not-the-servers-key-987654321", env={"OPENAI_API_KEY": ""})
    assert from_env.code == 1 and given.code == 1, (from_env.stderr, given.stderr)
    line = " ".join(from_env.stderr.split())
    assert line.startswith(f"compact-agent: the provider rejected the API key from OPENAI_API_KEY at {url}"
                           "/chat/completions: "), line
    assert line.endswith("Incorrect API key provided; give another key: set OPENAI_API_KEY to a key the provider takes, or pass one with "
                         "--api-key; the session is saved: `compact-agent -c -p ...` continues it"), line
    said = " ".join(given.stderr.split())
    assert f"rejected the API key given with --api-key at {url}/chat/completions: " in said, said
    assert said.endswith("provided; give another key with --api-key; the session is saved: `compact-agent -c -p ...` "
                         "continues it"), said
    assert "--model, a setting" not in line + said and "refused again" not in line + said  # an HTTP 400's advice
    assert "987654321" not in from_env.stderr + given.stderr


def test_help_names_the_variable_read() -> None:
    from typer.testing import CliRunner

    from compact_agent.cli import app

    text = " ".join(CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"}).output.split())
    assert "--base-url URL OpenAI-compatible endpoint (vLLM, Ollama, llama.cpp); its key is --api-key or OPENAI_API_KEY" in text
    assert "--api-key KEY API key (else read from OPENAI_API_KEY;" in text
