"""An option of the chat command given after a subcommand is said as such: `config --context-window
8k` said 'no such option --context-window; did you mean --forget-window?' and `sessions --cwd DIR`
'no such option --cwd', though both options are the chat command's and these commands use them
given before their name. Now the line says where the option goes, or that the command does not
use it; an option nobody has keeps its line."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(("args", "line"), [
    (("config", "--context-window", "8k"),
     "--context-window goes before the command: compact-agent --context-window 8k config"),
    (("sessions", "--cwd", "/tmp/a b"), "--cwd goes before the command: compact-agent --cwd '/tmp/a b' sessions"),
    (("sessions", "--cwd=/srv"), "--cwd goes before the command: compact-agent --cwd /srv sessions"),
    (("config", "-m", "x"), "-m goes before the command: compact-agent -m x config"),
    # every one moved, the others kept where they were: it said `compact-agent --base-url URL config`
    (("config", "--base-url", "http://127.0.0.1:8080/v1", "-m", "fake-model"),
     "--base-url and -m go before the command: compact-agent --base-url http://127.0.0.1:8080/v1 -m fake-model config"),
    (("--cwd", "/srv", "config", "--forget-window", "-m", "--context-window=8k", "-mx"),
     "--context-window and -m go before the command: compact-agent --cwd /srv --context-window 8k -m x config "
     "--forget-window -m"),
    (("config", "--prices", "1,2,3", "--yes"),
     "--prices goes before the command: compact-agent --prices 1,2,3 config (config does not use --yes)"),
    (("sessions", "--model", "x"),
     "--model is an option of the chat command; sessions does not use it (see compact-agent sessions --help)"),
    (("config", "--bogus"), "no such option --bogus (see compact-agent config --help)"),
    (("sessions", "--delet", "x"), "no such option --delet; did you mean --delete? (see compact-agent sessions --help)"),
])
def test_an_option_of_the_chat_command_after_a_command(cli, args, line):
    res = cli(*args)
    assert res.code == 2 and res.stderr == f"compact-agent: {line}\n" and res.stdout == ""


def test_where_it_goes_it_works(cli):
    res = cli("--cwd", str(cli.cwd), "sessions")
    assert res.code == 0 and res.stderr == ""
