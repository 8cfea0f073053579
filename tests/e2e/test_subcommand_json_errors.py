"""`config --json` and `analyze --json` fail as one JSON object on stdout, `{"error": ...}`, besides
the line on stderr, whatever fails: a bad setting in the config file (read by `config`, and by
`analyze --model`) and a window `config --forget-window` does not keep printed the line alone, and a
script that parses stdout got nothing to read."""

from __future__ import annotations

import json

import pytest

BAD = 'context_window = "abc"\n'
SAID = "bad value for context_window"


@pytest.mark.parametrize("args, code, said, bad_file", [
    (["config", "--json"], 2, SAID, True),
    (["analyze", "t.json", "--json", "--model", "fake-model", "--base-url", "http://127.0.0.1:9/v1"], 2, SAID, True),
    (["config", "--json", "--forget-window", "http://127.0.0.1:9/v1"], 1, "no window is remembered", False),
])
def test_a_failure_with_json_is_one_error_object(cli, args, code, said, bad_file) -> None:
    cli.home.mkdir(parents=True, exist_ok=True)
    if bad_file:
        (cli.home / "config.toml").write_text(BAD)
    (cli.cwd / "t.json").write_text(json.dumps([{"role": "user", "content": "hi"},
                                                {"role": "assistant", "content": "hello"}]))
    res = cli(*args)
    assert res.code == code, (res.stdout, res.stderr)
    [line] = res.stderr.splitlines()
    assert said in line and line.startswith("compact-agent: "), line
    assert res.stdout.count("\n") == 1 and json.loads(res.stdout) == {"error": line.removeprefix("compact-agent: ")}
    plain = cli(*[a for a in args if a != "--json"])
    assert plain.code == code and plain.stdout == "", plain.stdout  # without --json: the line alone
