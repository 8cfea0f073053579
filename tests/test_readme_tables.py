"""The README shows the analyzer's four per-window tables (cost parts, recall, stalls) that
docs/analyzer.md explains; the two copies are the same text, and the README's summary row of ours at
each window quotes that window's table."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WINDOWS = ("32K", "64K", "128K", "200K")


def tables(text: str) -> dict[str, str]:
    found = dict(re.findall(r"^\*\*(\d+K)\*\*\n\n```\n(.*?)```$", text, re.M | re.S))
    assert tuple(found) == WINDOWS, tuple(found)
    return found


def test_the_readme_shows_the_four_tables_of_docs_analyzer() -> None:
    readme = tables((ROOT / "README.md").read_text())
    assert readme == tables((ROOT / "docs" / "analyzer.md").read_text())
    for table in readme.values():
        head = table.splitlines()[0].split()
        assert {"hit", "miss", "out", "sum", "reread", "recall", "stalls", "over"} <= set(head), head


def test_the_readme_summary_quotes_ours_in_each_table() -> None:
    text = (ROOT / "README.md").read_text()
    found = tables(text)
    for window in WINDOWS:
        ours = next(line for line in found[window].splitlines() if line.startswith("ours "))
        cells = ours.split()
        cost, recall, stalls = cells[4], cells[10], cells[13]
        assert f"| {window} | ${cost}, {recall}, {stalls} |" in text, (window, ours)
