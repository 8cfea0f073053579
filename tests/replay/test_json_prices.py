"""`analyze --json` names the prices its costs were computed with."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .test_cli_analyze import cli


def _chat() -> list[dict]:
    return [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]


@pytest.mark.parametrize("pricing, expected", [
    ("deepseek", {"model": "deepseek-chat", "provider": "deepseek", "unit": "USD per million tokens",
                  "input_miss": 0.28, "input_hit": 0.028, "input_cache_write": None, "output": 0.42}),
    ("anthropic", {"model": "claude-sonnet-4-5", "provider": "anthropic", "unit": "USD per million tokens",
                   "input_miss": 3.0, "input_hit": 0.3, "input_cache_write": 3.75, "output": 15.0}),
])
def test_the_json_names_the_prices_its_costs_were_computed_with(tmp_path: Path, pricing: str, expected: dict):
    """It named only `pricing`: a script could not tell what a cost was made of."""
    (tmp_path / "t.json").write_text(json.dumps(_chat()))
    for extra in ([], ["--totals"]):
        out = cli("t.json", "-s", "ours", "--pricing", pricing, "--json", *extra, cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["prices"] == expected
