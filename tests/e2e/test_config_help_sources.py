"""`compact-agent config --help` listed "flag" among the places a value comes from, beside options
of its own (--json) that set nothing, and a reader tried `compact-agent config -m NAME`: refused, as
`config` takes none of the chat command's options itself. The help says a flag is one of those given
before the word `config`, and names the ones it reads: the options `cli_unused.USES` says it uses."""

from __future__ import annotations

import re

import typer

from compact_agent.cli import app
from compact_agent.cli_unused import USES
from tests.e2e.conftest import Cli


def test_config_help_says_a_flag_is_given_before_config_and_which(cli: Cli) -> None:
    shown = cli("config", "--help")
    assert shown.code == 0, shown.stderr
    text = " ".join(shown.stdout.split())
    assert "A flag is an option of the chat command given before the word config, not after it: " \
           "compact-agent -m NAME config." in text, text
    chat = typer.main.get_command(app)
    read = [max(p.opts, key=len) for p in chat.params if p.name in USES["config"]]
    assert len(read) == len(USES["config"])
    listed = re.search(r"Those read are (.*?)\. ", text)
    assert listed is not None, text
    assert sorted(re.split(r", | and ", listed.group(1))) == sorted(read)
    for flag in read:  # not taken after the word config
        after = cli("config", flag, "x")
        assert after.code == 2 and f"{flag} goes before the command: compact-agent {flag} x config" \
            in after.stderr, after.stderr
    before = cli("-m", "some-local-model", "config")
    assert before.code == 0, before.stderr
    assert [line.split()[-1] for line in before.stdout.splitlines() if line.startswith("model ")] == ["flag"]
