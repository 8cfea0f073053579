"""/cost at 60 and 50 columns: every figure whole and every `kind · model` named; the table squeezed
into 60 columns cut numbers (`111,2…`) and left the model column empty."""

from __future__ import annotations

import io

from rich.console import Console

from compact_agent.agent.accounting.costs import Entry, report
from compact_agent.models import REGISTRY
from compact_agent.ui.session_views import render_cost


def a_long_session():
    sonnet, deepseek = REGISTRY["claude-sonnet-4-5"], REGISTRY["deepseek-chat"]
    return report([*(Entry("main", sonnet, 111_234, 98_765, 12_345, 4_321, 5_000) for _ in range(9)),
                   Entry("summary", sonnet, 80_000, 70_000, 1_000, 3_000, 0),
                   Entry("main", deepseek, 1_234_567, 1_000_000, 0, 12_000, 0)])


def shown(width: int) -> str:
    c = Console(record=True, width=width, file=io.StringIO(), markup=False)
    c.print(render_cost(a_long_session(), compactions=1))
    return c.export_text()


def test_cost_lays_out_at_60_and_50_columns_without_cutting_a_figure():
    r = a_long_session()
    for width in (60, 50, 80):
        out = shown(width)
        assert "…" not in out, out
        assert all(len(line.rstrip()) <= width for line in out.splitlines()), out
        lines = [line.strip() for line in out.splitlines()]
        for key in [*r.rows, "total"]:
            assert key in lines, out  # each kind · model whole, as a heading
        for figure in ("1,001,106", "888,885", "111,105", "2,315,673", "1,958,885", "244,683", "$1.2700", "$1.4655"):
            assert figure in out, (figure, out)
        for label in ("requests", "cache hit", "cache miss", "cache write", "output", "cost"):
            assert label in out


def test_a_wide_terminal_keeps_the_one_table():
    out = shown(140)
    assert "kind · model" in out and "main · claude-sonnet-4-5" in out and "┃ requests ┃" in out
