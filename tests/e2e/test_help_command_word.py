"""`compact-agent help COMMAND` prints that command's help, as `compact-agent help` prints the
program's: it was refused as a prompt of two words to put in quotes (`a prompt of several words goes
in quotes, as one argument: compact-agent "help analyze"`), which sends the user to the model."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("command", ["analyze", "sessions", "config"])
def test_help_before_a_command_is_its_help(cli, command):
    res = cli("help", command)
    assert res.code == 0 and res.stdout == cli(command, "--help").stdout, res.stderr
    assert res.stdout.startswith(f"Usage: compact-agent {command} [OPTIONS]")
    assert cli.sessions() == []


def test_help_before_other_words_is_still_a_prompt_to_quote(cli):
    res = cli("help", "me")
    assert res.code == 2 and "a prompt of several words goes in quotes" in res.stderr and res.stdout == ""
