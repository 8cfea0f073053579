"""`compact-agent -p hi --version` said "--version takes no arguments, not 'hi'": hi is -p's prompt,
not a word given to --version. It says so, and nothing is sent."""

from __future__ import annotations

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .test_print_commands import fake

SAID = ("--version is not used with a prompt: '{}' is -p's prompt (compact-agent --version alone prints "
        "the version)")


@pytest.mark.parametrize(("args", "prompt"), [
    (("-p", "hi", "--version"), "hi"),
    (("--version", "-p", "fix the test"), "fix the test"),
    (("-pv", "hi"), "hi"),
])
def test_version_beside_a_print_mode_prompt_says_it_is_the_prompt(cli, args, prompt):
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        res = cli(*args, *fake(server))
        as_json = cli(*args, *fake(server), "--output-format", "json")
    assert server.requests == []
    assert (res.code, res.stdout, res.stderr) == (2, "", f"compact-agent: {SAID.format(prompt)}\n")
    assert as_json.code == 2 and as_json.json()["error"] == SAID.format(prompt)
    assert "takes no arguments" not in res.stderr


def test_without_print_mode_a_word_beside_version_is_said_as_before(cli):
    res = cli("hi", "--version")
    assert (res.code, res.stderr) == (2, "compact-agent: --version takes no arguments, not 'hi' (see compact-agent "
                                         "--help)\n")
