"""/cost's row for a model prices each request at the prices it was sent at. A session run at
--prices 1,0.1,2 and resumed at --prices 2,0.2,4 (or a model priced otherwise since) summed its
requests into one row and priced them all at the first prices: the row said less than the
total, which priced each request right."""

from __future__ import annotations

import re

from compact_agent.agent.accounting.costs import Entry, report
from compact_agent.models import model_info
from compact_agent.price_setting import ModelPrices
from tests.e2e.conftest import Cli
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def test_a_row_of_requests_at_two_prices_costs_their_sum() -> None:
    cheap = model_info("local", prices=ModelPrices(1.0, 0.1, 2.0, 1.0))
    dear = model_info("local", prices=ModelPrices(2.0, 0.2, 4.0, 2.0))
    entries = [Entry("main", cheap, 1_000_000, 0, 0, 0), Entry("main", dear, 1_000_000, 0, 0, 0)]
    r = report(entries)
    [row] = r.rows.values()
    assert row.cost == r.total_cost == 3.0


#: 1,000 input tokens a request, none from the cache, no output: $0.001 at the first prices, $0.002 at the second.
USAGE = {"prompt_tokens": 1_000, "completion_tokens": 0, "prompt_tokens_details": {"cached_tokens": 0},
         "prompt_cache_hit_tokens": 0, "prompt_cache_miss_tokens": 1_000}


def test_cost_after_the_prices_changed_between_runs(cli: Cli) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("noted", usage=USAGE), model="local") as server:
        at = ("-m", "local", "--base-url", server.base_url, "--api-key", "k")
        assert cli("-p", "hello", *at, "--prices", "1,0.1,2").code == 0
        assert cli("-c", "-p", "again", *at, "--prices", "2,0.2,4").code == 0
        cost = cli("-c", "-p", "/cost", *at, "--prices", "2,0.2,4")
    assert cost.code == 0, cost.stderr
    [row] = re.findall(r"\$(\d+\.\d+) │ main · local", cost.stdout)
    assert row == "0.0030", cost.stdout  # one model: its row is the whole, no total row saying it again
    assert "│ total" not in cost.stdout, cost.stdout
