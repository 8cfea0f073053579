"""`compact-agent --help` names each command with a whole sentence: the list cut the first lines of
config's and analyze's help to 'Print the effective settings and where each came from, then...' and
'Replay transcripts request by request through our pipeline...'."""

from __future__ import annotations

import re


def test_the_commands_listed_in_help_are_said_whole(cli):
    res = cli("--help")
    assert res.code == 0
    listed = res.stdout.split("\nCommands:\n", 1)[1]
    said = dict(re.findall(r"^  (\w+) +(.+(?:\n {4,}.+)*)", listed, re.M))
    assert set(said) == {"config", "sessions", "analyze"}, listed
    for name, text in said.items():
        text = " ".join(text.split())
        assert text.endswith(".") and not text.endswith("..."), (name, text)
    assert " ".join(said["config"].split()) == "Print the settings in effect and where each came from."
