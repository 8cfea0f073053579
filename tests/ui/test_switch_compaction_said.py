"""The compaction `/model … --window N` makes is said after the line that says why, and as made for
the new window. The REPL printed it as it came, above the switch's line, and as `compacted (manual,
full)`: a /compact the user had not typed, before anything had said the window was smaller."""

from __future__ import annotations

from .repl_driver import drive
from .test_commands_terminal import answer


async def test_the_switch_says_the_new_window_then_the_compaction_it_made_for_it(tmp_path):
    turns = [f"turn {i}\r" for i in range(6)]
    run = await drive(tmp_path, answer, [*turns, "/model --window 6000\r"])
    lines = [line.strip() for line in run.out.splitlines() if "ok ok" not in line]
    why = next(i for i, line in enumerate(lines) if line.startswith("window 32,768 → 6,000 · model fake-model"))
    made = next(i for i, line in enumerate(lines) if line.startswith("compacted "))
    archived = next(i for i, line in enumerate(lines) if line.startswith("full transcript archived at "))
    assert why < made < archived, lines
    assert lines[made].startswith("compacted to fit the new 6,000-token window (full): "), lines[made]
    assert "manual" not in lines[made], lines[made]
    # What the layers left out for the new window comes with the compaction, after the line that says why.
    folded = [i for i, line in enumerate(lines) if line.startswith("context: ")]
    assert all(why < i < made for i in folded), lines
