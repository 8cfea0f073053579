"""A first prompt holding controls (`\\x1b`, a bidirectional override) is cut to the width as it is
shown: `-r`'s list and `/resume` cut it before its controls became their escapes (`\\x1b` takes four
columns where the character took none), so the row came out wider than the terminal and wrapped
onto a second line. `compact-agent sessions`, which is cut to no terminal, cuts it the same way."""

from __future__ import annotations

import pytest
from rich.cells import cell_len

from compact_agent.ui.sessions_list import SessionRow, format_row, numbered
from compact_agent.ui.visible import visible

SESSION = "20261203-165616-c1730f"
ASKED = "explain \x1b[31m this \x1b[0m and \u202e that " * 6  # one_line'd, as session_rows gives it


@pytest.mark.parametrize("fit", [60, 80, 100, 120])
def test_a_row_with_escapes_fits_the_terminal(fit: int) -> None:
    lines, _ = numbered([SessionRow(SESSION, "2026-12-03 16:56", 2, ASKED.strip())], fit)
    [line] = lines
    assert cell_len(visible(line)) <= fit - 1, visible(line)  # as the console shows it
    assert line.endswith("…") and "\\x1b[31m" in line


def test_the_listing_cuts_at_what_it_shows() -> None:
    row = SessionRow(SESSION, "2026-12-03 16:56", 2, ASKED.strip())
    shown = visible(format_row(None, row))  # how `compact-agent sessions` writes it
    prompt = shown.split("2 messages  ", 1)[1]
    assert cell_len(prompt) <= 70 and prompt.startswith("explain \\x1b[31m this")


def test_unanswered_mark_stays_after_escapes() -> None:
    row = SessionRow(SESSION, "2026-12-03 16:56", 1, "hi \x1b", unanswered=True)
    assert format_row(1, row, fit=100).endswith("message   hi \\x1b  (unanswered)")
