"""/status at 80 columns (`-p /status` piped, 12 compactions) wrapped the compactions row after `auto-compaction`,
leaving `on` alone on the next line: the state goes beside the counts where the line holds both,
else whole on a line of its own under them."""

from __future__ import annotations

from tests.ui.test_narrow_and_habits import session, shown


async def test_the_auto_compaction_state_is_not_split_from_its_words(tmp_path):
    s = session(tmp_path)
    try:
        for width in (79, 70, 60):  # at 80 it fits: 12 compactions did not
            rows = [r.rstrip() for r in await shown(s, "/status", width)]
            at = next(i for i, r in enumerate(rows) if r.startswith("compactions"))
            assert rows[at] == "compactions 0 in the whole session (0 since this run began)", rows
            assert rows[at + 1] == " " * 12 + "auto-compaction on", rows
        wide = [r.rstrip() for r in await shown(s, "/status", 120)]
        assert "compactions 0 in the whole session (0 since this run began)   auto-compaction on" in wide, wide
    finally:
        s.close()
