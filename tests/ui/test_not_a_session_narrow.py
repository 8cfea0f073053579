"""`-r`'s list and `/resume` in a narrow terminal keep the words that say a file is no session: its
row, the id, the date and the words, was cut to the width whole, so at 50 columns it read
`20261205-054321-f01d7d  2026-12-05 05:45  n…`. The date goes first (the id is what `sessions
--delete` takes, the words what the row is about)."""

from __future__ import annotations

from compact_agent.ui.sessions_list import SessionRow, numbered

JUNK = "20991231-000000-aaaaaa"


def test_a_narrow_row_of_a_file_that_is_no_session_keeps_its_words() -> None:
    rows = [SessionRow(JUNK, "2026-12-04 05:00", 0, "", not_a_session=True)]
    [line], _ = numbered(rows, 50)
    assert line == f"     {JUNK}  not a session file…", line
    [line], _ = numbered(rows, 120)
    assert line == f"     {JUNK}  2026-12-04 05:00  not a session file (-r cannot open it; it is left as it is)"
