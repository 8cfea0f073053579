"""The README's headline tables quote, for ours at each window, the analyzer's per-window tables (cost
parts, recall, stalls) that docs/analyzer.md shows and explains: the cost, recall and stalls of ours,
and the cost parts of ours and of the cheapest rival; the README sends the reader there for the whole
tables."""

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


def parts(row: list[str]) -> str:
    """Hit / miss / re-read / summary of a row of the analyzer's table, as the README quotes them."""
    offset = row.index("$") + 1  # "compact" may hold two cells ("800 (8f)")
    hit, miss, _out, summary, reread = row[offset + 1:offset + 6]
    return f"{hit} / {miss} / {reread} / {summary}"


def test_the_readme_quotes_the_cost_parts_of_ours_and_the_cheapest_rival() -> None:
    """The README's second table: hit / miss / re-read / summary of ours and of the rival its headline
    names the cheapest, as the analyzer's tables print them."""
    text = (ROOT / "README.md").read_text()
    found = tables((ROOT / "docs" / "analyzer.md").read_text())
    for window in WINDOWS:
        rows = {line.split()[0]: line.split() for line in found[window].splitlines()[1:] if line.strip()}
        cheapest = re.search(rf"^\| {window} \| [^|]+\| [^|]+\| ([\w-]+) \$", text, re.M)
        assert cheapest is not None, window
        rival = cheapest.group(1)
        assert f"| {window} | {parts(rows['ours'])} | {rival}: {parts(rows[rival])} |" in text, (window, rival)
