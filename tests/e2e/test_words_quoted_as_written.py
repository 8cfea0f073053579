"""A value the command line names in its one-line error is quoted as the user wrote it: Python's form
of it (`repr`) put a value holding a quote in double quotes (`"it's"`) and doubled each backslash
(`'a\\\\b'`), text the user never typed."""

from __future__ import annotations

import json

import pytest

from compact_agent.words import quoted

WRITTEN = "it's\\x"


def test_a_value_is_quoted_as_written() -> None:
    assert quoted(WRITTEN) == "'it's\\x'"
    assert quoted("a\nb") == "'a\\nb'"  # one line still


@pytest.mark.parametrize(("args", "said"), [
    (("-p", "x", "--output-format", WRITTEN), f"--output-format must be text, json or stream-json, not '{WRITTEN}'"),
    (("-p", "x", "--max-turns", WRITTEN),
     f"--max-turns: expected a whole number of model requests (1 or more), not '{WRITTEN}'"),
    (("config", WRITTEN), f"config takes no arguments, not '{WRITTEN}' (see compact-agent config --help)"),
    (("--version", WRITTEN), f"--version takes no arguments, not '{WRITTEN}' (see compact-agent --help)"),
    (("config\\", "x"), "'config\\' is not a command; did you mean config? (a prompt of several words goes in "
                        "quotes, as one argument)"),
])
def test_a_value_in_a_command_line_error_is_quoted_as_written(cli, args, said):
    res = cli(*args, env={"DEEPSEEK_API_KEY": "sk-test"})
    assert (res.code, res.stderr) == (2, f"compact-agent: {said}\n")


def test_the_json_error_quotes_it_as_written_too(cli):
    res = cli("-p", "x", "--output-format", "json", "--max-turns", WRITTEN)
    said = f"--max-turns: expected a whole number of model requests (1 or more), not '{WRITTEN}'"
    assert res.code == 2 and json.loads(res.stdout)["error"] == said
