"""The cost of a session whose models have prices and one has none, by one rule everywhere: the
requests of known prices summed, those of unknown prices counted apart. After `deepseek-chat`, a
switch to `qwen-small` (no prices) and one to `gpt-4o`, the toolbar said `cost unknown` on
qwen-small of a session that had spent money, then a sum of the priced requests alone on gpt-4o;
/cost's total said `unknown`, its note `prices unknown for this model` while the model in use had
prices, and its line for this run `0 requests, cost unknown`. Real HTTP: the fake OpenAI server
serves the three models (with an endpoint given, every name goes to it)."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from compact_agent.agent.accounting.context_report import cost_report
from compact_agent.agent.accounting.costs import Entry, report
from compact_agent.agent.run.model_switch import switch_model
from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from compact_agent.models import REGISTRY, ModelInfo
from compact_agent.ui.session_views import render_cost
from compact_agent.ui.toolbar import status_line
from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .test_commands_terminal import show

QWEN = ModelInfo("qwen-small", "openai", 16_000, 4_096, 0, 0, 0, 0)  # a model without prices


def _open(tmp_path: Path, server: FakeOpenAIServer) -> AgentSession:
    (tmp_path / "project").mkdir(exist_ok=True)
    return AgentSession(SessionOptions(cwd=tmp_path / "project", model="deepseek-chat", base_url=server.base_url,
                                       api_key="k", home=tmp_path / "home", context_window=64_000,
                                       settings=Settings(memory_enabled=False)))


async def test_the_toolbar_and_cost_count_the_known_part_and_the_unknown_apart(tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("ok " * 400), model="deepseek-chat", serves=["qwen-small", "gpt-4o"]) as server:
        s = _open(tmp_path, server)
        try:
            await s.run_turn("one")
            spent = cost_report(s).total_cost
            await switch_model(s, "qwen-small", window=16_000)
            await s.run_turn("two")
            on_qwen = status_line(s, 200)
            await switch_model(s, "gpt-4o", window=64_000)
            await s.run_turn("three")
            on_gpt = status_line(s, 200)
            r = cost_report(s)
            cost = " ".join((await show(s, "/cost")).split())
        finally:
            await s.aclose()
    assert spent > 0.0001
    assert f"${spent:.4f} + 1 request at unknown prices" in on_qwen, on_qwen
    assert "cost unknown" not in on_qwen
    assert r.unpriced == 1 and r.total_cost > spent
    assert f"${r.total_cost:.4f} + 1 request at unknown prices" in on_gpt, on_gpt
    # /cost: the total by the same rule, the note naming the model without prices, not "this model"
    assert f"${r.total_cost:.4f} + 1 request at unknown prices" in cost, cost
    assert "prices unknown for qwen-small (a local or unlisted model)" in cost, cost
    assert "prices unknown for this model" not in cost


async def test_this_runs_line_after_resuming_follows_the_same_rule(tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("ok"), model="deepseek-chat") as server:
        s = _open(tmp_path, server)
        try:  # an earlier run's requests: one priced, one of a model without prices
            s.ext.ledger.earlier = [Entry("main", s.info, 20_000, 0, 0, 1_000),
                                    Entry("main", QWEN,
                                          9_000, 0, 0, 100)]
            bar = status_line(s, 200)
            cost = " ".join((await show(s, "/cost")).split())
        finally:
            s.close()
    known = s.info.cost(20_000, 0, 1_000, 0)
    assert f"session ${known:.4f} + 1 request at unknown prices" in bar, bar
    assert "this run (since the session was resumed): 0 requests, nothing spent" in cost, cost


def test_requests_over_the_window_are_said_in_one_wording_priced_or_not() -> None:
    priced = REGISTRY["deepseek-chat"]
    unpriced = QWEN
    texts = []
    for info in (priced, unpriced):
        r = report([Entry("main", info, 10_000, 0, 0, 100, 5 * info.window)])
        c = Console(record=True, width=400, file=io.StringIO(), markup=False)
        c.print(render_cost(r, compactions=1))
        texts.append(" ".join(c.export_text().split()))
    for text in texts:
        assert "1 request would not have fit the window whole" in text, text
        assert "of them would not" not in text and "at all" not in text


