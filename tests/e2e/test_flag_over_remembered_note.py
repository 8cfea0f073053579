"""A session resumed with a flag that gives another value than the one it remembers says so in one
note line: the flag wins (usage.md), and `-c --context-window 8k` after a session started at 16k,
or `-c --base-url` at another server, ran with the flag's value without a word. The same value
given again, or none, says nothing."""

from __future__ import annotations

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .test_print_prompt_saved_early import fake


def ok(req) -> Reply:
    return Reply.text("ok")


def test_a_window_given_over_the_remembered_one_is_noted(cli):
    with FakeOpenAIServer(ok) as server:
        assert cli("-p", "hi", *fake(server), "--context-window", "16k").code == 0
        again = cli("-c", "-p", "/status", *fake(server), "--context-window", "16k")
        plain = cli("-c", "-p", "/status", *fake(server))
        other = cli("-c", "-p", "/status", *fake(server), "--context-window", "12k")
    assert again.code == plain.code == other.code == 0, other.stderr
    assert "note" not in again.stderr and "note" not in plain.stderr, again.stderr + plain.stderr
    assert other.stderr == ("compact-agent: note: --context-window 12,000 overrides 16,000, which the session "
                            "remembers\n"), other.stderr


def test_an_endpoint_given_over_the_remembered_one_is_noted(cli):
    with FakeOpenAIServer(ok) as first, FakeOpenAIServer(ok) as second:
        assert cli("-p", "hi", *fake(first)).code == 0
        moved = cli("-c", "-p", "again", *fake(second))
        assert moved.code == 0, moved.stderr
        assert moved.stderr == (f"compact-agent: note: --base-url {second.base_url} overrides {first.base_url}, "
                                "which the session remembers\n"), moved.stderr
        assert len(second.requests) == 1  # the flag's endpoint is the one used


def test_the_model_prices_turns_and_instructions_given_over_remembered_ones_are_noted(cli):
    """`-c --model`, `--prices`, `--max-turns` and `--append-system-prompt` won over the values the
    session remembers without a word, where `--base-url` and `--context-window` were noted."""
    with FakeOpenAIServer(ok) as server:
        url = ("--base-url", server.base_url, "--api-key", "k")
        assert cli("-p", "hi", "--model", "fake-model", *url, "--prices", "0.27,0.07,1.10", "--max-turns", "20",
                   "--append-system-prompt", "Answer   in\nFrench.").code == 0
        same = cli("-c", "-p", "/status", "--model", "fake-model", *url, "--prices", "0.27,0.07,1.1",
                   "--max-turns", "20", "--append-system-prompt", "Answer   in\nFrench.")
        other = cli("-c", "-p", "/status", *url, "--prices", "0.28,0.028,0.42,0.5", "--max-turns", "5",
                    "--append-system-prompt", "Answer in German, and keep every answer under three lines.")
        model = cli("-c", "-p", "/status", "--model", "other-model", *url)
    assert same.code == other.code == model.code == 0, other.stderr + model.stderr
    assert "note" not in same.stderr, same.stderr
    assert other.stderr == ("compact-agent: note: --max-turns 5 overrides 20, which the session remembers; "
                            "--prices 0.28,0.028,0.42,0.5 overrides 0.27,0.07,1.1, which the session remembers; "
                            "--append-system-prompt 'Answer in German, and keep every answer…' overrides "
                            "'Answer in French.', which the session remembers\n"), other.stderr
    assert model.stderr == ("compact-agent: note: --model other-model overrides fake-model, which the session "
                            "remembers\n"), model.stderr
