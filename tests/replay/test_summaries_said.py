"""The output says who wrote the summaries the summary-based strategies were replayed with: the
deterministic stand-in, or the model `--model` named (it said neither, and the figures differ)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakes.openai_server import FakeOpenAIServer

from .test_cli_analyze import KEY, NO_KEYS, _compacting, _summary, cli

STAND_IN = "summaries by the deterministic stand-in (--model NAME has a model write them)"


def test_the_stand_in_is_named_in_the_tables_and_the_json(tmp_path: Path) -> None:
    transcript = _compacting(tmp_path)
    for args in ((), ("--totals",)):
        out = cli(str(transcript), "--window", "8000", "-s", "codex", *args, env={"COLUMNS": None})
        assert out.returncode == 0, out.stderr
        assert STAND_IN in out.stdout.splitlines(), out.stdout  # one line, whole in 80 columns
    out = cli(str(transcript), "--window", "8000", "-s", "codex", "--json")
    assert json.loads(out.stdout)["summary_model"] is None
    totals = cli(str(transcript), "--window", "8000", "-s", "codex", "--json", "--totals")
    assert json.loads(totals.stdout)["summary_model"] is None


def test_a_model_given_with_model_is_named(tmp_path: Path) -> None:
    transcript = _compacting(tmp_path)
    args = (str(transcript), "--window", "8000", "-s", "codex", "--model", "deepseek-chat", "--api-key", KEY)
    no_keys: dict[str, str | None] = dict(NO_KEYS)  # the key given, none from the environment
    with FakeOpenAIServer(_summary, model="deepseek-chat", api_key=KEY) as server:
        table = cli(*args, "--base-url", server.base_url, env=no_keys)
        data = cli(*args, "--base-url", server.base_url, "--json", env=no_keys)
    assert table.returncode == data.returncode == 0, table.stderr + data.stderr
    assert "summaries by deepseek-chat (--model)" in table.stdout.splitlines() and STAND_IN not in table.stdout
    assert json.loads(data.stdout)["summary_model"] == "deepseek-chat"
