"""A model the registry does not know, given its prices (`--prices`): priced as a known model is
(the schedule compacts early where they say it pays, its cost is counted), and `/config` says which
prices the session runs with and whence. Without them such a model compacts at the threshold only
and its cost is unknown (test_unknown_prices.py)."""

from __future__ import annotations

import json
import re

from tests.e2e.conftest import Cli
from tests.e2e.scripted import FileTaskAgent, make_project, task_text
from tests.fakes.openai_server import FakeOpenAIServer, Reply

N = 30
LOCAL = ("--model", "fake-model", "--base-url", "http://127.0.0.1:9/v1", "--api-key", "k")


def test_a_model_given_prices_compacts_where_they_say_it_pays(cli: Cli) -> None:
    total = make_project(cli.cwd, N)
    with FakeOpenAIServer(FileTaskAgent(n=N), window=128_000, model="some-local-model") as server:
        r = cli("-p", task_text(N), "--context-window", "128k", "--verbose", "-y", "-m", "some-local-model",
                "--base-url", server.base_url, "--api-key", "k", "--prices", "0.28,0.028,0.42",
                "--output-format", "json")
    assert r.code == 0, r.stderr
    result = json.loads(r.stdout)
    assert f"FINAL SUM: {total}" in result["result"]
    assert result["total_cost_usd"] is not None and result["total_cost_usd"] > 0
    lines = [line for line in r.stderr.splitlines() if "compacted" in line]
    assert lines, r.stderr  # DeepSeek's prices, given: as deepseek-chat does (test_unknown_prices.py)
    for line in lines:
        assert re.fullmatch(r"compacted early \(auto, (record written without a model|full)\): "
                            r"[\d,]+ → [\d,]+ tokens, cheaper than carrying [\d,]+ more to the 112,500 threshold",
                            line), line


def prices_row(out: str) -> str:
    found = re.search(r"^prices\s+(.+?)\s*$", out, re.MULTILINE)
    assert found is not None, out
    return re.sub(r"\s{2,}", " | ", found[1])


def test_config_shows_the_prices_in_use_and_whence(cli: Cli) -> None:
    given = cli("-p", "/config", *LOCAL, "--prices", "0.27,0.07,1.10")
    unknown = cli("-p", "/config", *LOCAL)
    known = cli("-p", "/config", "--model", "deepseek-chat", "--api-key", "k")
    for res in (given, unknown, known):
        assert res.code == 0, res.stdout + res.stderr
    assert prices_row(given.stdout) == "$0.27 input, $0.07 cached, $1.1 output per M tokens | flag"
    assert prices_row(unknown.stdout) == ("none | not known: fake-model is not a known model, so it compacts at "
                                          "the threshold only (set prices)")
    assert prices_row(known.stdout) == ("$0.28 input, $0.028 cached, $0.42 output per M tokens | "
                                        "the model's own (deepseek-chat)")


def test_prices_that_cannot_be_are_one_line(cli: Cli) -> None:
    r = cli("-p", "hi", *LOCAL, "--prices", "0.5,1,2")
    assert r.code == 2
    assert r.stderr == ("compact-agent: --prices: the cached input price (1) is above the uncached one (0.5); a "
                        "cache hit never costs more (give the same price twice for an endpoint without a cache "
                        "discount)\n")


def test_the_config_command_shows_prices_given_before_it_as_it_shows_a_window(cli: Cli) -> None:
    """`compact-agent --prices X config` showed the prices as unset (`null  default`), while
    `--context-window` (and `--model`, `--base-url`) before `config` are shown as flags."""
    r = cli("--prices", "0.27,0.07,1.10", "--context-window", "64k", "config")
    as_json = cli("--prices", "0.27,0.07,1.10", "config", "--json")
    assert r.code == 0 and as_json.code == 0, r.stderr + as_json.stderr
    assert prices_row(r.stdout) == "$0.27 input, $0.07 cached, $1.1 output per M tokens | flag"
    assert re.search(r"^context_window\s+64000\s+flag\s*$", r.stdout, re.MULTILINE), r.stdout
    assert json.loads(as_json.stdout)["settings"]["prices"] == {
        "value": {"input": 0.27, "cached_input": 0.07, "output": 1.10, "cache_write": 0.27}, "source": "flag"}


def test_prices_given_on_resuming_price_the_requests_made_before_them(cli: Cli) -> None:
    """A session of a model the registry does not know, resumed with --prices: /cost said 'prices
    unknown for this model (a local or unlisted one)' and 'cost unknown' of the requests made
    before, though the model's prices were now given; they are priced at them, and a line says so."""
    with FakeOpenAIServer(lambda req: Reply.text("ok " * 50)) as server:
        fake = ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")
        assert cli("-p", "first", *fake).code == 0
        before = cli("-c", "-p", "/cost", *fake)
        after = cli("-c", "-p", "/cost", "--prices", "1,0.1,2", *fake)
    assert "prices unknown for fake-model" in before.stdout and "unknown" in before.stdout, before.stdout
    assert after.code == 0, after.stderr
    assert "unknown" not in after.stdout and "prices unknown" not in after.stdout, after.stdout
    assert "1 request made before this model's prices were given is priced at them" in " ".join(after.stdout.split())
    assert re.search(r"cost\s+\$0\.0\d{3}", after.stdout), after.stdout
