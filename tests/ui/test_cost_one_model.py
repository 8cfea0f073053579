"""/cost of a session that made its requests with one model shows its figures once: the model's
row and a `total` row under it said the same numbers twice, in the table and in the narrow layout
(a heading each). With two rows (another model, or the model's summaries) the total stays."""

from __future__ import annotations

import io

from rich.console import Console

from compact_agent.agent.accounting.costs import Entry, report
from compact_agent.models import REGISTRY
from compact_agent.ui.session_views import render_cost

DEEPSEEK = REGISTRY["deepseek-chat"]


def shown(entries: list[Entry], width: int) -> str:
    c = Console(record=True, width=width, file=io.StringIO(), markup=False)
    c.print(render_cost(report(entries), compactions=0))
    return c.export_text()


def test_one_model_is_one_block_at_every_width() -> None:
    entries = [Entry("main", DEEPSEEK, 40_000, 30_000, 0, 500), Entry("main", DEEPSEEK, 41_000, 39_000, 0, 700)]
    for width in (140, 60, 45):
        out = shown(entries, width)
        assert out.count("main · deepseek-chat") == 1, out
        assert "total" not in out, out
        assert out.count("81,000") == 1 and out.count("1,200") == 1, out  # input and output, said once


def test_two_rows_keep_the_total() -> None:
    entries = [Entry("main", DEEPSEEK, 40_000, 30_000, 0, 500), Entry("summary", DEEPSEEK, 20_000, 19_000, 0, 900)]
    for width in (140, 60):
        out = shown(entries, width)
        assert "main · deepseek-chat" in out and "summary · deepseek-chat" in out and "total" in out, out
        assert "60,000" in out, out
