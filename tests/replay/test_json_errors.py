"""`analyze --json`: an error is one JSON object on stdout, besides its line on stderr."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .test_cli_analyze import cli


def _chat() -> list[dict]:
    return [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]


@pytest.mark.parametrize("args, code, said", [
    (["--model", "nosuchmodel-xyz"], 1, "OPENAI_API_KEY is not set"),  # fails in the run itself
    (["-s", "bogus"], 2, "unknown strategy 'bogus'"),
    (["--pricing", "cheap"], 2, "unknown pricing 'cheap'"),
    (["--window", "12"], 2, "--window: must be at least 2,048 tokens"),  # a parse error
    (["--model"], 2, "--model needs a value"),  # `--model --json`: an option where its value belongs
    (["--plot", "chart.gif"], 2, "name the chart .svg"),  # refused by the command before the replay
    (["--api-key", "k"], 2, "--api-key is for the model that writes the summaries"),
    (["nope.jsonl"], 2, "no such file or directory"),
])
def test_with_json_an_error_is_one_json_object_on_stdout(tmp_path: Path, args: list[str], code: int, said: str):
    """Bad input with --json printed its line on stderr and nothing on stdout: a script parsing
    stdout got no JSON to say why."""
    (tmp_path / "t.json").write_text(json.dumps(_chat()))
    out = cli("t.json", *args, "--json", cwd=tmp_path, env={"OPENAI_API_KEY": None})
    assert out.returncode == code, (out.stdout, out.stderr)
    assert out.stdout.count("\n") == 1 and set(json.loads(out.stdout)) == {"error"}, out.stdout
    assert said in json.loads(out.stdout)["error"]
    assert out.stderr.count("\n") == 1 and said in out.stderr and "Traceback" not in out.stderr
    without = cli("t.json", *args, cwd=tmp_path, env={"OPENAI_API_KEY": None})
    assert without.returncode == code and without.stdout == ""  # without --json: the line alone, as before
