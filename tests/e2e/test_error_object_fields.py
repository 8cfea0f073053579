"""Every result object a `-p --output-format json` run prints has the fields docs/usage.md lists,
however early it failed: a command line that could not be parsed, or a bad setting, printed one
without `instruction_files_changed`, which a run failing a moment later (no API key) has, so a
script reading `result["instruction_files_changed"]` of a failed run broke on those alone."""

from __future__ import annotations

import pytest


def _no_key_object(cli) -> dict:
    res = cli("-p", "hi", "-m", "claude-sonnet-4-5", "--output-format", "json")
    assert res.code == 1, res.stderr
    return res.json()


@pytest.mark.parametrize("case", ["parse error", "bad setting"])
def test_an_early_failure_has_every_field_of_a_later_one(cli, case):
    if case == "bad setting":
        (cli.cwd / ".compact-agent.toml").write_text("microcompact_keep_recent = -3\n")
        args = ("-p", "hi", "-m", "claude-sonnet-4-5", "--output-format", "json")
    else:
        args = ("-p", "hi", "--output-format", "json", "--max-turns", "x")
    res = cli(*args)
    assert res.code == 2 and res.stderr.count("\n") == 1, res.stderr
    early = res.json()
    (cli.cwd / ".compact-agent.toml").unlink(missing_ok=True)
    later = _no_key_object(cli)
    assert early["instruction_files_changed"] == []
    assert sorted(early) == sorted(later)
