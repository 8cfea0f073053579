"""`--pricing` sets more than the prices: the strategies are replayed with the max output of its
model (batch.py: `model_info(price.name)`, capped at a quarter of the window), and the rivals'
triggers and ours' limits are built on it. The output said only the prices, so the same `--prices`
under another `--pricing` moved the figures without a word: the footer names the max output and
whose it is, and `--pricing`'s help says it sets it."""

from __future__ import annotations

import json
import re
from pathlib import Path

from compact_agent.models import model_info
from compact_agent.replay.given_prices import price_list

from .test_cli_analyze import _compacting, cli


def _footer(stdout: str) -> str:
    """The line under the tables, unwrapped."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("window "))
    return " ".join(lines[start:])


def test_the_footer_names_the_max_output_the_strategies_assume_and_its_model(tmp_path: Path) -> None:
    transcript = _compacting(tmp_path)
    said = {}
    for pricing, window in (("deepseek", 64_000), ("anthropic", 64_000), ("anthropic", 200_000)):
        out = cli(str(transcript), "--window", str(window), "--pricing", pricing, "-s", "opencode",
                  "--prices", "0.28,0.028,0.42,0.28", env={"COLUMNS": None})
        assert out.returncode == 0, out.stderr
        name = price_list(pricing, None).name
        tokens, own = model_info(name, window=window).max_output, model_info(name).max_output
        whose = f"a quarter of the window: {name}'s own {own:,}" if tokens < own else f"{name}'s"  # capped: said so
        assert f"max output {tokens:,} tokens ({whose}, from --pricing" in _footer(out.stdout), out.stdout
        said[pricing, window] = tokens
    assert said == {("deepseek", 64_000): 8_192, ("anthropic", 64_000): 16_000, ("anthropic", 200_000): 50_000}


def test_pricing_help_says_it_sets_the_max_output_the_strategies_assume() -> None:
    out = cli("--help")
    assert out.returncode == 0, out.stderr
    text = re.sub(r"\s+", " ", out.stdout)
    pricing = text[text.index("--pricing NAME"):text.index("--prices IN")]
    assert "max output" in pricing and "strategies" in pricing, pricing


def test_the_json_names_the_max_output_the_strategies_assume_and_its_model(tmp_path: Path) -> None:
    """A script reading `--json` could not tell the max output the figures were replayed with: the
    footer said it, the JSON did not."""
    transcript = _compacting(tmp_path)
    for pricing, window, tokens in (("deepseek", 64_000, 8_192), ("anthropic", 200_000, 50_000)):
        for extra in ((), ("--totals",)):
            out = cli(str(transcript), "--window", str(window), "--pricing", pricing, "-s", "opencode", "--json", *extra)
            assert out.returncode == 0, out.stderr
            said = json.loads(out.stdout)["max_output"]
            assert said == {"model": price_list(pricing, None).name, "tokens": tokens}, said
