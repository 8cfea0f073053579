"""A block pasted at the start of a message lost its first line's indentation: the REPL stripped the
line it sent, paste and all, so `    def f():` went as `def f():` under its indented body. A paste is
sent as pasted; only blank lines before the message and white space after it are dropped, and
`/rewind` gives the prompt back as sent."""

from __future__ import annotations

from pathlib import Path

from compact_agent.ui.pastes import as_sent, sent_ends
from compact_agent.ui.sent_record import note
from tests.fakes.openai_server import Reply

from .repl_driver import drive, pasted

BLOCK = "".join(f"    def f{i}(self):\n        return {i}\n" for i in range(6))  # 12 lines: a placeholder
SMALL = "    x = 1\n    y = 2\n"  # 2 lines: goes in as text


async def test_a_paste_at_the_start_keeps_its_indentation(tmp_path: Path) -> None:
    run = await drive(tmp_path, lambda req: Reply.text("ok"),
                      [f"{pasted(BLOCK)}why does it fail?\r", f"{pasted(SMALL)}and this?\r"])
    assert run.prompts == [f"{BLOCK}why does it fail?", f"{SMALL}and this?"], run.prompts


async def test_blank_lines_before_and_white_space_after_still_go(tmp_path: Path) -> None:
    run = await drive(tmp_path, lambda req: Reply.text("ok"), [f"{pasted(chr(10) * 2 + SMALL + chr(10) * 2)}\r"])
    assert run.prompts == [SMALL.rstrip()], run.prompts


def test_the_record_of_a_prompt_notes_what_was_dropped() -> None:
    assert sent_ends("\n \n    x = 1\n  ") == ("\n \n", "    x = 1", "\n  ")
    assert as_sent("  typed words ") == "  typed words"
    noted = note("[pasted 9 lines]", {"[pasted 9 lines]": "\n" + SMALL})
    assert (noted.lead, noted.trail) == ("\n", "\n")
    assert noted.pastes(SMALL.rstrip()) == {"[pasted 9 lines]": "\n" + SMALL}
