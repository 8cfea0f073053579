"""A lone word that is a command misspelt (`compact-agent confg`, `-p anlyze`) is one line naming the
command meant, exit 2, and nothing is sent: it was taken for a prompt, the REPL's first request or a
`-p` turn paid for. A word that is a prompt (`hello`, `explain`) is one, as is any word after `--`."""

from __future__ import annotations

import json

import pytest

from compact_agent.cli_input import misspelt_command

COMMANDS = ("config", "sessions", "analyze")


@pytest.mark.parametrize(("word", "meant"), [
    ("confg", "config"), ("cofnig", "config"), ("Config", "config"), ("configure", "config"), ("conf", "config"),
    ("anlyze", "analyze"), ("analyse", "analyze"), ("anaylse", "analyze"), ("analyzer", "analyze"),
    ("sesions", "sessions"), ("session", "sessions"), ("SESSIONS", "sessions"),
])
def test_a_command_misspelt_is_named(word, meant):
    assert misspelt_command(word, COMMANDS) == meant


@pytest.mark.parametrize("word", [
    "hello", "hi", "explain", "continue", "status", "fix", "review", "test", "help", "summarize", "refactor",
    "commit", "confirm", "conflict", "compile", "connect", "analysis", "con", "ana", "settings",
    "confg?", "conf-ig", "session2", "конфиг", "",
])
def test_a_word_that_is_a_prompt_is_none(word):
    assert misspelt_command(word, COMMANDS) is None


@pytest.mark.parametrize(("args", "said"), [
    (("confg",), "'confg' is not a command; did you mean config? (to send it as a prompt: compact-agent -- confg)"),
    (("anlyze",), "'anlyze' is not a command; did you mean analyze? (to send it as a prompt: compact-agent -- anlyze)"),
    (("-y", "sesions"),
     "'sesions' is not a command; did you mean sessions? (to send it as a prompt: compact-agent -- sesions)"),
    (("-p", "confg"), "'confg' is not a command; did you mean config? (to send it as a prompt: compact-agent -p -- confg)"),
])
def test_a_lone_misspelt_command_is_one_line_and_no_session(cli, args, said):
    res = cli(*args, env={"DEEPSEEK_API_KEY": "sk-test"})
    assert (res.code, res.stderr, res.stdout) == (2, f"compact-agent: {said}\n", "")
    assert cli.sessions() == []


def test_asked_for_json_the_line_is_also_the_error_object(cli):
    res = cli("-p", "anlyze", "--output-format", "json")
    said = "'anlyze' is not a command; did you mean analyze? (to send it as a prompt: compact-agent -p -- anlyze)"
    assert res.code == 2 and res.stderr == f"compact-agent: {said}\n"
    assert json.loads(res.stdout)["error"] == said


@pytest.mark.parametrize("args", [("-p", "hello"), ("-p", "explain"), ("-p", "--", "analyse"), ("-p", "--", "confg")])
def test_a_one_word_prompt_goes_on_to_the_model(cli, args):
    res = cli(*args)  # no key: it got past the command line, its prompt saved in a session
    assert res.code == 1 and "DEEPSEEK_API_KEY is not set" in res.stderr, res.stderr
    [session] = cli.sessions()
    assert args[-1] in session.read_text()
