"""What a switch to a smaller window did is said with the switch, and kept as made for that window.

`/history` named the compaction `/model … --window 6000` made `compaction (manual, full)`, a /compact
the user had not typed, also after a restart: the saved record now carries the window it was made for.
A smaller window that needed no compaction folded old rounds for the new window: the toolbar's figure
dropped at the switch, but the layers' line said so only after the next turn."""

from __future__ import annotations

from .repl_driver import drive
from .test_commands_terminal import answer


def _compaction_lines(out: str) -> list[str]:
    return [line.strip() for line in out.splitlines() if "compaction (" in line and line.rstrip().endswith("tokens")]


async def test_history_names_the_compaction_a_switch_made_for_its_window_also_after_a_restart(tmp_path):
    turns = [f"turn {i}\r" for i in range(6)]
    run = await drive(tmp_path, answer, [*turns, "/model --window 6000\r", "/history\r"])
    again = await drive(tmp_path, answer, ["/history\r"], continue_last=True)
    for out in (run.out, again.out):
        said = _compaction_lines(out)
        assert len(said) == 1, said
        assert "compaction (to fit a 6,000-token window, full)  " in said[0], said
        assert "manual" not in said[0], said


async def test_a_typed_compact_is_still_listed_as_manual(tmp_path):
    turns = [f"turn {i}\r" for i in range(3)]
    run = await drive(tmp_path, answer, [*turns, "/compact\r", "/history\r"])
    said = _compaction_lines(run.out)
    assert len(said) == 1 and "compaction (manual, full)  " in said[0], said


async def test_what_the_layers_leave_out_for_a_smaller_window_is_said_with_the_switch(tmp_path):
    turns = [f"turn {i}\r" for i in range(6)]
    run = await drive(tmp_path, answer, [*turns, "/model --window 12000\r", "next\r"])
    lines = [line.strip() for line in run.out.splitlines() if "ok ok" not in line]
    why = next(i for i, line in enumerate(lines) if line.startswith("window 32,768 → 12,000 · model fake-model"))
    assert "as the view layers shape it for this window" in lines[why], lines[why]
    assert not any(line.startswith("compacted ") for line in lines), lines
    assert lines[why + 1].startswith("context: old rounds folded into a digest"), lines[why:why + 3]
    # …and not again after the next turn, whose request carried the fold decided for the switch.
    assert not any(line.startswith("context: old rounds folded") for line in lines[why + 2:]), lines[why:]
