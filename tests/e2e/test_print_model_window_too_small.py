"""`-p "/model NAME --window 2k"` is bad usage, exit 2, as `--context-window 2k` is: the window
cannot hold the system prompt and the tool definitions. It exited 1, the code of a failure (no key,
a provider error), where docs/usage.md names 'a window too small for the tools' as exit 2."""

from __future__ import annotations

from tests.fakes.openai_server import FakeOpenAIServer, Reply


def test_a_window_too_small_given_to_model_is_exit_2(cli) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("ok"), serves=["foo"]) as server:
        args = ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")
        flag = cli("-p", "hello", *args, "--context-window", "2k")
        text = cli("-p", "/model foo --window 2k", *args)
        as_json = cli("-p", "/model foo --window 2k", *args, "--output-format", "json")
    assert flag.code == 2, flag.stderr  # the same window given as a flag
    for run in (text, as_json):
        assert run.code == 2, run.stdout + run.stderr
        [line] = run.stderr.splitlines()
        assert line.startswith("compact-agent: a 2,000-token context window cannot hold") and \
            "(/model NAME --window N)" in line, line
    result = as_json.json()
    assert result["is_error"] is True and "the minimum is" in result["error"], result
    assert not server.requests  # nothing was asked of the model
