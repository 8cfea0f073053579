"""`analyze --prices IN,CACHED,OUT[,WRITE]`: the replay priced at the user's model, in place of the
named pricing's figures, for every strategy (ours' decisions too); said in the footer and the JSON;
a malformed or contradictory value refused in one line, exit 2, before any replay."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

from compact_agent.models import PRICING
from compact_agent.replay.given_prices import price_list
from compact_agent.replay.importers import load_transcript
from compact_agent.replay.ours import Ours
from compact_agent.replay.simulate import Sim, replay_all
from compact_agent.replay.standin import standin_summarize

from .test_cli_analyze import _chat, _compacting, cli

DEEPSEEK = "0.28,0.028,0.42"  # deepseek-chat's figures (models.REGISTRY)


def _json(tmp_path: Path, *args: str) -> dict:
    out = cli(*args, "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_the_deepseek_figures_given_cost_what_the_deepseek_pricing_does(tmp_path: Path):
    """Every strategy, ours with its price-driven compactions included, on a transcript that compacts."""
    f = _compacting(tmp_path).name
    named = _json(tmp_path, f, "--window", "8000", "--pricing", "deepseek")
    given = _json(tmp_path, f, "--window", "8000", "--prices", DEEPSEEK)
    assert given["prices"] == {**named["prices"], "model": None, "given": True}
    assert given["totals"] == named["totals"]
    assert any(t["compactions"] for t in named["totals"])


def test_other_prices_change_the_cost_as_the_tokens_say(tmp_path: Path):
    (tmp_path / "t.json").write_text(json.dumps([{"role": "user", "content": "hi"},
                                                 {"role": "assistant", "content": "hello"}]))
    (total,) = _json(tmp_path, "t.json", "-s", "none", "--prices", "1,0.5,2")["totals"]
    assert (total["input_tokens"], total["cached_tokens"], total["output_tokens"]) == (5, 0, 6)
    assert total["cost"] == pytest.approx((5 * 1 + 6 * 2) / 1e6)
    (tmp_path / "long.json").write_text(json.dumps(_chat(12, result_chars=2_000)))
    for t in _json(tmp_path, "long.json", "-s", "none", "-s", "codex", "--prices", "1,0.5,2")["totals"]:
        miss = t["input_tokens"] - t["cached_tokens"]
        assert t["cached_tokens"] > 0
        assert t["cost"] == pytest.approx((miss * 1 + t["cached_tokens"] * 0.5 + t["output_tokens"] * 2) / 1e6,
                                          abs=2e-6)  # the JSON's costs have 6 decimals
    # Anthropic's cache: the misses are written to it, at the fourth price
    (total,) = _json(tmp_path, "t.json", "-s", "none", "--pricing", "anthropic", "--prices", "1,0.5,2,4")["totals"]
    assert total["cost"] == pytest.approx((5 * 4 + 6 * 2) / 1e6)


def test_a_cache_write_given_as_0_is_billed_0_and_one_left_out_as_an_input(tmp_path: Path):
    """With Anthropic's cache, `--prices 1,0.5,2,0` billed the writes at the input price (1), as
    though no write price were given; it is 0, and said as 0 in the JSON and the footer."""
    (tmp_path / "t.json").write_text(json.dumps([{"role": "user", "content": "hi"},
                                                 {"role": "assistant", "content": "hello"}]))
    args = ("t.json", "-s", "none", "--pricing", "anthropic", "--prices")
    free = _json(tmp_path, *args, "1,0.5,2,0")
    (total,) = free["totals"]
    assert (total["input_tokens"], total["cached_tokens"]) == (5, 0)
    assert total["cost"] == pytest.approx(6 * 2 / 1e6) and free["prices"]["input_cache_write"] == 0
    assert "$2.0/M output, $0.0/M cache write)" in cli(*args, "1,0.5,2,0", cwd=tmp_path).stdout
    left_out = _json(tmp_path, *args, "1,0.5,2")
    assert left_out["totals"][0]["cost"] == pytest.approx((5 * 1 + 6 * 2) / 1e6)
    assert left_out["prices"]["input_cache_write"] == 1


def test_the_footer_says_the_prices_given(tmp_path: Path):
    (tmp_path / "t.json").write_text(json.dumps(_chat(2)))
    out = cli("t.json", "-s", "none", "--prices", "1.25,0.125,10", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "--prices (deepseek's prompt cache) ($1.25/M input, $0.125/M cached, $10.0/M output)" \
        in " ".join(out.stdout.split())


@pytest.mark.parametrize("args, said", [
    (["--prices", "1,2"], "--prices: expected 3 or 4 prices"),
    (["--prices", "1,cheap,2"], "--prices: the cached input price 'cheap' is not a number"),
    (["--prices", "1,2,3"], "--prices: the cached input price (2) is above the uncached one (1)"),
    (["--prices", "1,-1,3"], "--prices: the cached input price must be 0 or more"),
    (["--prices", "3,0.3,15,3.75"], "--prices: a cache-write price (3.75) with --pricing deepseek"),
    (["--prices", "3,0.3,15,3.75", "--pricing", "deepseek"], "add --pricing anthropic"),
])
def test_a_malformed_or_contradictory_value_is_one_line_exit_2(tmp_path: Path, args: list[str], said: str):
    (tmp_path / "t.json").write_text(json.dumps(_chat(1)))
    out = cli("t.json", *args, cwd=tmp_path)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith("compact-agent: ") and said in out.stderr and out.stderr.count("\n") == 1


async def test_ours_decides_with_the_prices_given(tmp_path: Path):
    """Ours' pipeline weighs forgetting against re-reading at the prices it is given, as the chat's does."""
    seen: list[Ours] = []

    def ours(sim: Sim) -> Ours:
        seen.append(Ours(sim))
        return seen[-1]

    t = load_transcript(_compacting(tmp_path))
    given = price_list("deepseek", (1.0, 0.5, 2.0, 1.0))
    run = await replay_all(t, {"ours": ours}, window=8_000, summarize=functools.partial(standin_summarize),
                           max_output=4_096, provider="deepseek", cache_ttl_s=PRICING["deepseek"].cache_ttl_s,
                           prices=given)
    assert run.runs
    prices = seen[0].cm.prices
    assert (prices.miss, prices.hit, prices.output) == (1.0, 0.5, 2.0)
