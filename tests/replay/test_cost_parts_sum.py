"""`--json`'s `cost_parts` add up to its `cost`, as docs/analyzer.md says ("which sum to it"): each
part was rounded to 6 decimals on its own, and many totals' parts missed the cost by 1-2e-6."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from compact_agent.replay.metrics import COST_PARTS, Metrics
from compact_agent.replay.report_notes import results_json

from .test_cli_analyze import _compacting, cli


def _adds_up(row: dict) -> bool:
    """The parts' decimal figures, as a script reads them, sum to the cost's."""
    return sum(Decimal(repr(v)) for v in row["cost_parts"].values()) == Decimal(repr(row["cost"]))


def test_parts_rounded_each_alone_would_miss_the_cost_and_do_not() -> None:
    parts = dict(zip(COST_PARTS, (0.0000014, 0.0000014, 0.0000014, 1.2345674, 0.0, 0.0000004), strict=True))
    cost = sum(parts.values())  # 1.2345720: the parts rounded alone come to 1.234570
    m = Metrics(strategy="ours", transcript="t", cost=cost, cost_parts=parts)
    [row] = results_json([m])
    assert row["cost"] == 1.234572  # the cost as it was
    assert _adds_up(row), row["cost_parts"]
    for k, v in parts.items():  # each part within a micro-dollar of its own rounding, none below 0
        assert abs(row["cost_parts"][k] - round(v, 6)) <= 1e-6 + 1e-12 and row["cost_parts"][k] >= 0
    assert row["cost_parts"]["notes"] == 0.0


def test_every_row_of_a_replay_adds_up(tmp_path: Path) -> None:
    out = cli(str(_compacting(tmp_path)), "--window", "8000", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    rows = data["totals"] + [r for t in data["transcripts"] for r in t["results"]]
    assert len(rows) > 10 and all(_adds_up(r) for r in rows), [r["cost_parts"] for r in rows if not _adds_up(r)]
