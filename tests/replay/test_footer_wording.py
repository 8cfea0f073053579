"""The lines under the analyzer's tables define every column shown, name every label the freed
column can show (the rivals' too), say what ours is and where the rivals are told; and `-s OURS`
is answered as `-s ourz` is, with the name it means."""

from __future__ import annotations

import re
from pathlib import Path

from compact_agent.replay.report_notes import LEGEND
from compact_agent.replay.report_table import COLUMNS, LAYER_LABELS

from .test_cli_analyze import _compacting, cli


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def test_every_column_shown_is_defined_under_the_tables_at_every_width(tmp_path: Path) -> None:
    transcript = _compacting(tmp_path)
    for columns, defined in ((None, ("peak", "cost")), ("120", ("peak", "cost")),
                             ("200", ("req", "peak", "mean", "cached", "cost"))):
        out = cli(str(transcript), "--window", "8000", env={"COLUMNS": columns})
        assert out.returncode == 0, out.stderr
        text = _flat(out.stdout)
        for column in defined:
            assert f" {column} = " in text or text.startswith(f"{column} = "), (columns, column, text[-1500:])
        assert "ours = compact-agent's pipeline; each rival: docs/analyzer.md, \"The rivals\"" in text
    # Every column of the widest table has its line in the legend, but for the strategy's name.
    assert set(COLUMNS) - {"strategy"} <= set(LEGEND), set(COLUMNS) - set(LEGEND)
    docs = (Path(__file__).resolve().parents[2] / "docs" / "analyzer.md").read_text(encoding="utf-8")
    assert "\n### The rivals\n" in docs  # the section the line points to


def test_the_freed_legend_names_the_rivals_labels_too() -> None:
    legend = LEGEND["freed (view/req; compaction)"]
    for label in {*LAYER_LABELS.values(), "clear", "sum", "cut"}:
        assert re.search(rf"(^|[ :;,']){re.escape(label)}( |$)", legend), (label, legend)


def test_a_strategy_named_in_capitals_gets_the_name_it_means(tmp_path: Path) -> None:
    transcript = _compacting(tmp_path)
    for given, meant in (("OURS", "ours"), ("Codex", "codex"), ("ourz", "ours")):
        out = cli(str(transcript), "-s", given)
        assert out.returncode == 2 and f"did you mean {meant}?" in out.stderr, out.stderr
        assert len(out.stderr.splitlines()) == 1
