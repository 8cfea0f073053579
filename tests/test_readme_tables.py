"""The README's headline table quotes, for ours at each window, the analyzer's per-window tables (cost
parts, recall, stalls) that docs/analyzer.md shows and explains; the README keeps only the headline
and sends the reader there for the tables."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WINDOWS = ("32K", "64K", "128K", "200K")


def tables(text: str) -> dict[str, str]:
    found = dict(re.findall(r"^\*\*(\d+K)\*\*\n\n```\n(.*?)```$", text, re.M | re.S))
    assert tuple(found) == WINDOWS, tuple(found)
    return found


def test_docs_analyzer_shows_the_four_tables() -> None:
    for table in tables((ROOT / "docs" / "analyzer.md").read_text()).values():
        head = table.splitlines()[0].split()
        assert {"hit", "miss", "out", "sum", "reread", "recall", "stalls", "over"} <= set(head), head


def test_the_readme_summary_quotes_ours_in_each_table() -> None:
    text = (ROOT / "README.md").read_text()
    found = tables((ROOT / "docs" / "analyzer.md").read_text())
    for window in WINDOWS:
        ours = next(line for line in found[window].splitlines() if line.startswith("ours "))
        cells = ours.split()
        cost, recall, stalls = cells[4], cells[10], cells[13]
        assert f"| {window} | ${cost}, {recall}, {stalls} |" in text, (window, ours)
