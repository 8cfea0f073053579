"""A word given to a command that takes none is one line naming the command: `compact-agent config
model` (one setting asked for) said click's 'got unexpected extra argument(s) (model)'."""

from __future__ import annotations

import json

import pytest


@pytest.mark.parametrize(("args", "said"), [
    (("config", "model"), "config takes no arguments, not 'model' (see compact-agent config --help)"),
    (("config", "a", "b"), "config takes no arguments, not 'a b' (see compact-agent config --help)"),
    (("sessions", "x"), "sessions takes no arguments, not 'x' (see compact-agent sessions --help)"),
])
def test_an_argument_to_a_command_that_takes_none_is_one_line(cli, args, said):
    res = cli(*args)
    assert (res.code, res.stderr, res.stdout) == (2, f"compact-agent: {said}\n", "")


@pytest.mark.parametrize(("args", "each"), [
    (("sessions", "--delete", "20261201-1200", "20261201-1300"), "--delete 20261201-1200 --delete 20261201-1300"),
    (("sessions", "--dry-run", "--delete", "a", "b", "c"), "--delete a --delete b --delete c"),
    (("sessions", "--delete", "a", "b", "--dry-run"), "--delete a --delete b"),
])
def test_several_ids_after_one_delete_say_to_give_each_its_own(cli, args, each):
    """`sessions --delete A B` said 'sessions takes no arguments, not 'B'', of a command that takes
    those ids, one per --delete (it is repeatable); nothing is removed."""
    res = cli(*args)
    said = f"--delete takes one ID at a time: give each its own ({each})"
    assert (res.code, res.stderr, res.stdout) == (2, f"compact-agent: {said}\n", "")


def test_asked_for_json_the_line_is_its_error_object(cli):
    res = cli("config", "--json", "model")
    said = "config takes no arguments, not 'model' (see compact-agent config --help)"
    assert res.code == 2 and res.stderr == f"compact-agent: {said}\n"
    assert json.loads(res.stdout) == {"error": said}


@pytest.mark.parametrize(("args", "words"), [
    (("--version", "extra"), "extra"),
    (("extra", "-v"), "extra"),
    (("-yv", "a", "b"), "a b"),  # short flags written together, v among them
    (("--version", "config"), "config"),  # the version, or the command?
    (("--version", "--", "hi"), "hi"),
])
def test_a_word_beside_version_is_one_line(cli, args, words):
    """`compact-agent --version extra` printed the version and ignored the word."""
    res = cli(*args)
    said = f"--version takes no arguments, not '{words}' (see compact-agent --help)"
    assert (res.code, res.stderr, res.stdout) == (2, f"compact-agent: {said}\n", "")


def test_version_beside_options_is_the_version(cli):
    res = cli("-m", "v", "--version")  # `-mv` would be the model v: no version asked
    assert res.code == 0 and res.stdout.startswith("compact-agent ") and res.stderr == ""
