"""`analyze --set NAME=VALUE`: ours (and seed000's limits) replayed with another value of a pipeline
setting, checked before any replay, handed to the worker processes and the `--model` path, and said
in the text report and the JSON. Without it the defaults are used, whatever the environment holds."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

from compact_agent.config import Settings
from compact_agent.models import PRICING, model_info
from compact_agent.replay import batch
from compact_agent.replay.analysis import Analysis
from compact_agent.replay.importers import load_transcript
from compact_agent.replay.metrics import measure
from compact_agent.replay.ours import Ours
from compact_agent.replay.report_json import to_json
from compact_agent.replay.seed000 import Seed000
from compact_agent.replay.simulate import replay_all
from compact_agent.replay.standin import standin_summarize

from .test_cli_analyze import _compacting, cli

WINDOW = 8_000  # the transcript compacts several times here, and stall_wait_usd=0 compacts once more


async def _with(path: Path, settings: Settings) -> list[dict]:
    """The totals of ours and seed000 replayed with `settings` given to them directly."""
    price = PRICING["deepseek"]
    t = load_transcript(path)
    run = await replay_all(t, {"ours": functools.partial(Ours, settings=settings),
                               "seed000": functools.partial(Seed000, settings=settings)},
                           window=WINDOW, summarize=functools.partial(standin_summarize, harness=t.harness_texts),
                           max_output=model_info(price.name, window=WINDOW).max_output, provider=price.provider,
                           cache_ttl_s=price.cache_ttl_s)
    return to_json(Analysis(WINDOW, "deepseek", price, runs=[batch.light(run)]), totals_only=True)["totals"]


async def test_set_replays_ours_with_the_value_in_the_workers(tmp_path: Path) -> None:
    path = _compacting(tmp_path)
    args = (str(path), "--window", str(WINDOW), "-s", "ours", "-s", "seed000", "--json")
    plain = json.loads(cli(*args).stdout)
    out = cli(*args, "--set", "stall_wait_usd=0")
    assert out.returncode == 0, out.stderr
    given = json.loads(out.stdout)
    assert given["settings"] == {"stall_wait_usd": 0} and "settings" not in plain
    assert given["totals"] == await _with(path, Settings(stall_wait_usd=0))
    assert plain["totals"] == await _with(path, Settings())
    ours = [next(r for r in data["totals"] if r["strategy"] == "ours") for data in (plain, given)]
    assert ours[0]["compactions"] != ours[1]["compactions"] and ours[0]["cost"] != ours[1]["cost"]


async def test_the_model_path_replays_with_the_values_too(tmp_path: Path) -> None:
    """A summarizer given (`--model`) replays in this process: the values reach it as the workers'."""
    path = _compacting(tmp_path)
    kw = {"window": WINDOW, "pricing": "deepseek"}
    summarize = functools.partial(standin_summarize, harness=frozenset())
    inside = await batch.replay_files([path], ["ours"], summarize=summarize, settings={"stall_wait_usd": 0.0}, **kw)
    workers = await batch.replay_files([path], ["ours"], settings={"stall_wait_usd": 0.0}, **kw)
    default = await batch.replay_files([path], ["ours"], summarize=summarize, **kw)
    compactions = [measure(r.runs, PRICING["deepseek"], "t").compactions for r in (*inside, *workers, *default)
                   if not isinstance(r, batch.Skipped)]
    assert len(compactions) == 3
    assert compactions[0] == compactions[1] != compactions[2]


def test_the_text_report_says_the_value_and_its_default_once(tmp_path: Path) -> None:
    out = cli(str(_compacting(tmp_path)), "--window", str(WINDOW), "-s", "ours", "--set", "stall_wait_usd=0")
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("ours with stall_wait_usd=0 (the default is 0.02)") == 1


def test_a_value_given_that_is_the_default_is_said_as_the_default(tmp_path: Path) -> None:
    """`--set stall_wait_usd=0.02` changes nothing: the text says it was read and is the default, and
    the JSON's `settings`, which holds what makes ours' figures other than the defaults', leaves it out."""
    args = (str(_compacting(tmp_path)), "--window", str(WINDOW), "-s", "ours", "--set", "stall_wait_usd=0.02",
            "--set", "autocompact_buffer=5k")
    text, as_json = cli(*args), cli(*args, "--json")
    assert text.returncode == as_json.returncode == 0, text.stderr
    assert ("ours with stall_wait_usd=0.02 (the default), autocompact_buffer=5000 (the default is 13000)"
            in text.stdout)
    assert json.loads(as_json.stdout)["settings"] == {"autocompact_buffer": 5000}
    alone = json.loads(cli(*args[:-2], "--json").stdout)
    assert "settings" not in alone


@pytest.mark.parametrize(("given", "said"), [
    ("stall_wait=0", "--set stall_wait=0: stall_wait is no setting (did you mean stall_wait_usd?)"),
    ("stall_wait_usd=abc", "bad value for stall_wait_usd (from --set): expected a number of 0 or more, not 'abc'"),
    ("stall_wait_usd", "--set stall_wait_usd: expected NAME=VALUE"),
    ("model=x", "--set model=x: model is not a setting of the pipeline the replay runs; --set takes one of "),
    ("collapse_commit_fraction=0.99", "collapse_commit_fraction = 0.99 (from --set) must be at most"),
])
def test_a_bad_set_is_one_line_before_any_replay(tmp_path: Path, given: str, said: str) -> None:
    out = cli(str(_compacting(tmp_path)), "--window", str(WINDOW), "--set", given)
    assert out.returncode == 2 and out.stdout == ""
    assert len(out.stderr.splitlines()) == 1 and out.stderr.startswith(f"compact-agent: {said}"), out.stderr


def test_values_are_read_as_a_settings_file_reads_them() -> None:
    from compact_agent.replay.given_settings import describe, parse

    got = parse(["autocompact_buffer=13k", "memory_enabled=true", "stall_wait_usd=0.005",
                 "compactable_tools=[\"grep\"]"])
    assert got == {"autocompact_buffer": 13_000, "memory_enabled": True, "stall_wait_usd": 0.005,
                   "compactable_tools": ["grep"]}
    assert describe({"memory_enabled": True}) == "ours with memory_enabled=true (the default is false)"
    assert parse([]) == {} and describe({}) == ""
