"""A prompt typed without quotes is one line saying to quote it, exit 2: `compact-agent -p what is
this project` printed the usage block, `Try 'compact-agent -h' for help.` and `Error: No such
command 'is'.`, and `-p explain sessions` listed the sessions, the prompt dropped with a note that
--print does not apply. A misspelt command (`analyse PATH`) is said to be none, with the one meant."""

from __future__ import annotations

import json

import pytest

from compact_agent.cli_help import nothing_spent


@pytest.mark.parametrize(("args", "said"), [
    (("-p", "what", "is", "this", "project"),
     'a prompt of several words goes in quotes, as one argument: compact-agent -p "what is this project"'),
    (("-p", "explain", "sessions"),
     'a prompt of several words goes in quotes, as one argument: compact-agent -p "explain sessions"'),
    (("-yp", "fix", "the", "config", "--max-turns", "3"),
     'a prompt of several words goes in quotes, as one argument: compact-agent -p "fix the config"'),
    (("-p", 'say "hi"', "twice"),
     "a prompt of several words goes in quotes, as one argument: compact-agent -p 'say \"hi\" twice'"),
    (("why", "does", "the", "build", "fail"),
     'a prompt of several words goes in quotes, as one argument: compact-agent "why does the build fail"'),
    (("analyse", "sessions/", "--window", "64000"),
     "'analyse' is not a command; did you mean analyze? (a prompt of several words goes in quotes, as one "
     "argument)"),
])
def test_a_prompt_of_several_arguments_is_one_line(cli, args, said):
    res = cli(*args)
    assert res.code == 2, res.stderr
    assert res.stderr == f"compact-agent: {said}\n"
    assert res.stdout == ""
    assert cli.sessions() == []


def test_asked_for_json_the_line_is_also_the_error_object(cli):
    res = cli("-p", "what", "is", "this", "--output-format", "json")
    assert res.code == 2
    said = 'a prompt of several words goes in quotes, as one argument: compact-agent -p "what is this"'
    assert res.stderr == f"compact-agent: {said}\n"
    assert json.loads(res.stdout) == {"type": "result", "subtype": "error", "is_error": True, "error": said,
                                      "result": None, "cut_off": False, "session_id": None, "duration_ms": 0,
                                      **nothing_spent()}


def test_a_quoted_prompt_and_a_command_are_as_before(cli):
    assert cli("sessions").stdout.startswith("no sessions in ")
    res = cli("-p", "what is this project")  # no key: it got past the command line
    assert res.code == 1 and "DEEPSEEK_API_KEY is not set" in res.stderr
