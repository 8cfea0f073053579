"""Words the REPL shows that promised or hid something: `/help` did not say what `record` and `full`
mean in a `compacted (auto, record)` line, nor how to mention a path with spaces; the permission
menu's third choice says what it does: "No, and tell the model what to do instead" asks for that
line (test_approval_instead.py), Esc is a plain no."""

from __future__ import annotations

from compact_agent.ui.approval import CHOICES, menu_lines
from tests.fakes.openai_server import Reply

from .repl_driver import drive


async def test_help_explains_the_compaction_line_and_paths_with_spaces(tmp_path) -> None:
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["/help\r"])
    flat = " ".join(run.out.split())
    assert 'A line "compacted (auto, full): …" says what started a compaction' in flat, flat
    assert "full, a summary the model wrote; a record of the steps written by the program, without a model" in flat
    assert '@"a b.txt" or @a\\ b.txt for a path with spaces' in flat


def test_the_menu_says_what_no_does() -> None:
    assert [answer for answer, _, _ in CHOICES] == ["once", "always", "instead"]
    text = "".join(t for _, t in menu_lines("bash", 2, 200))
    assert "3. No, and tell the model what to do instead  (n)" in text and "esc = just no" in text, text
