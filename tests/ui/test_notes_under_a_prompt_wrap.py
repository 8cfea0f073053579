"""A note under a prompt (`  ⎿ …`: an input cut to the window, an attachment, a reply cut off) wraps
under its own text, four columns in: the note of an input too large for the window went on at
column 0 in an 80-column terminal, its path a line of its own, read as output of its own."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from tests.fakes.openai_server import Reply

from .repl_driver import drive


async def test_the_note_of_an_input_cut_to_the_window_wraps_under_its_text(tmp_path: Path) -> None:
    console = Console(record=True, width=80, file=io.StringIO(), force_terminal=False)
    paste = " ".join(f"entry-{i}" for i in range(30_000))
    run = await drive(tmp_path, lambda req: Reply.text("read it"), [], first_message=paste, context_window=32_000,
                      console=console)
    lines = run.out.splitlines()
    [at] = [i for i, line in enumerate(lines) if line.startswith("  ⎿ the input (about")]
    rest = lines[at + 1:lines.index(next(x for x in lines[at + 1:] if x.startswith("⏺")))]
    assert rest and all(line.startswith("    ") for line in rest), lines[at:at + len(rest) + 1]
    assert "tool-results" in " ".join(x.strip() for x in rest)  # the path, under the note's text
