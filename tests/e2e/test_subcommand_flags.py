"""Options of the chat command given before a subcommand that has no use for them were dropped
without a word: `compact-agent --prices 1,0.1,2 -m x analyze T` replayed at analyze's own pricing,
`sessions` took no model, and `config --max-turns 7` showed the default. `config` now shows what
those flags set (the limit of model requests per turn too), and a flag a subcommand does not use
is said in one line."""

from __future__ import annotations

import re

from tests.e2e.conftest import Cli
from tests.e2e.test_analyze_cli import transcripts


def test_flags_sessions_does_not_use_are_said(cli: Cli) -> None:
    res = cli("-m", "x", "--context-window", "64k", "--prices", "1,0.1,2", "sessions")
    assert res.code == 0, res.stderr
    assert res.stderr == ("compact-agent: note: --model, --context-window and --prices do not apply to "
                          "`sessions`; ignored (see compact-agent sessions --help)\n")
    assert cli("sessions").stderr == "" and cli("--cwd", str(cli.cwd), "sessions").stderr == ""


def said(stderr: str) -> str:
    """stderr without the note that the two transcripts `transcripts` writes hold the same bytes."""
    return "".join(line for line in stderr.splitlines(keepends=True) if "hold the same bytes" not in line)


def test_flags_analyze_does_not_use_are_said(cli: Cli, tmp_path) -> None:
    """--prices before `analyze` is the chat's: the line says where analyze's own goes, with the
    command line that gives it there (it said 'does not apply to `analyze`', of an option analyze has)."""
    folder = transcripts(tmp_path / "t", n_tools=3, result_chars=100)
    res = cli("-m", "x", "--prices", "1,0.1,2", "analyze", str(folder), "-s", "none", "--totals")
    assert res.code == 0, res.stderr
    assert said(res.stderr) == ("compact-agent: note: --model does not apply to `analyze`; ignored "
                          "(see compact-agent analyze --help)\n"
                          "compact-agent: note: --prices before `analyze` is the chat command's, ignored; analyze "
                          f"takes its own after the command: compact-agent -m x analyze --prices 1,0.1,2 {folder} "
                          "-s none --totals\n")
    joined = cli("--prices=1,0.1,2", "--cwd", str(tmp_path), "analyze", str(folder), "-s", "none", "--totals")
    assert said(joined.stderr).endswith(f"after the command: compact-agent --cwd {tmp_path} analyze --prices 1,0.1,2 "
                                  f"{folder} -s none --totals\n"), joined.stderr
    both = cli("--prices", "1,0.1,2", "analyze", str(folder), "-s", "none", "--totals", "--prices", "2,0.2,4")
    assert said(both.stderr) == ("compact-agent: note: --prices does not apply to `analyze`; ignored "
                           "(see compact-agent analyze --help)\n")  # analyze's own was given: it is used


def test_config_shows_max_turns_and_says_what_it_ignores(cli: Cli) -> None:
    res = cli("--max-turns", "7", "--context-window", "64k", "config")
    assert res.code == 0 and res.stderr == "", res.stderr
    assert re.search(r"^max_requests_per_turn\s+7\s+flag\s*$", res.stdout, re.MULTILINE), res.stdout
    told = cli("-y", "--verbose", "config")
    assert told.code == 0
    assert told.stderr == ("compact-agent: note: --yes and --verbose do not apply to `config`; ignored "
                           "(see compact-agent config --help)\n")
