"""Every argument after `--` is a word of the prompt, as usage.md says to write a prompt that
begins with a dash: `-p -- fix the test` said `Error: No such command 'the'` under the usage
block, `-- -p hi` and `-- sessions x` the same, and `-p hi -- extra words` sent `hi` alone, the
words after `--` dropped without a word. A prompt given both before `--` and after it is one line."""

from __future__ import annotations

import json

import pytest
import typer

from compact_agent.cli import app
from compact_agent.cli_query import split_query
from tests.fakes.openai_server import FakeOpenAIServer, Reply, message_text


def fake(server: FakeOpenAIServer) -> tuple[str, ...]:
    return ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")


def asked(req) -> str:
    return [message_text(m) for m in req.messages if m.get("role") == "user"][-1]


@pytest.mark.parametrize(("after", "prompt"), [
    (("fix", "the", "test"), "fix the test"),
    (("-p", "hi"), "-p hi"),
    (("sessions", "x"), "sessions x"),  # no listing of the sessions
    (("-x", "is", "broken", "--model", "other"), "-x is broken --model other"),  # no option after `--`
])
def test_the_words_after_dashes_are_the_prompt(cli, after, prompt):
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        res = cli(*fake(server), "-p", "--", *after)
    assert (res.code, res.stdout.strip()) == (0, "ok"), res.stderr
    [req] = server.requests
    assert asked(req) == prompt  # the server knows fake-model alone: no `--model other` either


@pytest.mark.parametrize(("args", "code", "said"), [
    (("--", "-p", "hi"), 2, "compact-agent: the REPL needs a terminal"),
    (("-r", "--", "-p", "hi"), 1, "compact-agent: no earlier session in "),  # -r's own check comes first
    (("-m", "deepseek-chat", "--", "sessions", "x"), 2, "compact-agent: the REPL needs a terminal")])
def test_the_repl_starts_with_them(cli, args, code, said):
    res = cli(*args)  # the REPL's own line (stdin is no terminal here), not a usage error
    assert res.code == code and res.stderr.startswith(said), res.stderr


def test_the_repl_gets_them_as_its_first_message():
    group = typer.main.get_command(app)
    assert split_query(["--", "-p", "hi"], group) == ["--query", "-p hi"]
    assert split_query(["-r", "--", "-p", "hi"], group) == ["--query", "-p hi", "-r", ""]  # and picks a session
    assert split_query(["-m", "x", "--", "sessions", "x"], group) == ["--query", "sessions x", "-m", "x"]


@pytest.mark.parametrize(("args", "said"), [
    (("-p", "hi", "--", "extra", "words"),
     "the prompt is given twice, 'hi' before -- and 'extra words' after it: give it once, after -- "
     '(compact-agent -p -- "hi extra words")'),
    (("hi", "--", "there"),
     "the prompt is given twice, 'hi' before -- and 'there' after it: give it once, after -- "
     '(compact-agent -- "hi there")'),
    (("-p", "-", "--", "explain"),
     "-p - reads the prompt from stdin, and 'explain' after -- is another one: give one of them (piped stdin "
     'is added after a prompt: compact-agent -p -- "explain")'),
])
def test_a_prompt_before_and_after_dashes_is_one_line(cli, args, said):
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        res = cli(*fake(server), *args, input="a log\n")
    assert (res.code, res.stderr, res.stdout) == (2, f"compact-agent: {said}\n", "")
    assert server.requests == [] and cli.sessions() == []


def test_asked_for_json_the_line_is_also_the_error_object(cli):
    res = cli("-p", "--output-format", "json", "hi", "--", "extra")
    said = ("the prompt is given twice, 'hi' before -- and 'extra' after it: give it once, after -- "
            '(compact-agent -p -- "hi extra")')
    assert res.code == 2 and res.stderr == f"compact-agent: {said}\n"
    assert json.loads(res.stdout)["error"] == said
