"""An unknown option is suggested a real one only when it is genuinely close: click's cutoff (0.6 of
difflib's ratio, dashes included) suggested `--verbose` for `--bogus`, `--version` and `--yes` beside
`--verbose` for `--verbos`, `--model` and `--yes` beside `--help` for `--hel`, and the hidden
`--query` for `--quiet`. A typo, a name cut short or a word of the option's name is still suggested."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(("typed", "suggested"), [
    ("--bogus", None),
    ("--foo", None),
    ("--quiet", None),  # not the hidden --query the query argument travels in
    ("--verbos", "--verbose"),
    ("--hel", "--help"),
    ("--modle", "--model"),
    ("--mdoel", "--model"),
    ("--cdw", "--cwd"),
    ("--yess", "--yes"),
    ("--contxt-window", "--context-window"),
    ("--price", "--prices"),
    ("--output", "--output-format"),  # cut short
    ("--context", "--context-window"),
    ("--window", "--context-window"),  # a word of its name (analyze's own is --window)
    ("--tools", "--allowed-tools"),
    ("--dir", "--add-dir"),
])
def test_an_unknown_option_is_suggested_only_a_close_one(cli, typed, suggested):
    res = cli("-p", "x", typed)
    guess = f"; did you mean {suggested}?" if suggested else ""
    assert res.code == 2 and res.stderr == f"compact-agent: no such option {typed}{guess} (see compact-agent --help)\n"


def test_a_subcommand_suggests_its_own_options(cli):
    assert cli("sessions", "--al").stderr == \
        "compact-agent: no such option --al; did you mean --all? (see compact-agent sessions --help)\n"
    assert cli("config", "--bogus").stderr == "compact-agent: no such option --bogus (see compact-agent config --help)\n"


@pytest.mark.parametrize("args", [("--modle", "deepseek-chat", "-p", "hi"), ("--modle", "x", "-p", "fix it"),
                                  ("-y", "--modle", "x", "hi")])
def test_an_unknown_option_before_the_prompt_is_said_not_its_value_taken_for_the_prompt(cli, args):
    """`--modle x -p hi` took `x` for the prompt and `hi` for a second word of it: 'a prompt of several
    words goes in quotes, as one argument: compact-agent -p "x hi"', the typo never said."""
    res = cli(*args)
    assert (res.code, res.stderr) == (2, "compact-agent: no such option --modle; did you mean --model? "
                                         "(see compact-agent --help)\n")
    assert cli.sessions() == []
