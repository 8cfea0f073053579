"""A call declined with the user's instruction ("No, and tell the model what to do instead") reads
the same in every view of the session: the live turn said `⎿ declined; the model is told: <the
words>`, but Ctrl-O's whole output showed the refusal in red, as an error (`⎿ permission denied: the
user declined this bash call. The user's instruction (follow it instead of this call): …`), and
`/history` listed it as `bash: permission denied: the user declined …`, cut before the words."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from .repl_driver import drive
from .test_approval_instead import bash_then_told

RED = "\x1b[31m"


async def test_ctrl_o_and_history_say_what_the_turn_said(tmp_path: Path) -> None:
    console = Console(record=True, width=120, file=io.StringIO(), force_terminal=True, color_system="standard")
    export = console.export_text
    console.export_text = lambda **_: export(styles=True)  # type: ignore[method-assign]
    run = await drive(tmp_path, bash_then_told, ["run it\r", "/expand\r", "/history\r"], answers="Run Make Check\n",
                      console=console)
    after = run.out.split("DONE: told to Run Make Check", 1)[1]  # /expand (what Ctrl-O shows), /history
    assert "permission denied" not in after, after
    expanded, history = after.split("tool call in full", 1)
    told = [line for line in expanded.splitlines() if "Run Make Check" in line]
    assert len(told) == 1 and RED not in told[0], told
    assert "  ⎿ declined; the model is told: Run Make Check" in told[0], told
    row = next(line for line in history.splitlines() if "tool result" in line)
    assert row.endswith("bash: declined; the model is told: Run Make Check"), repr(row)
