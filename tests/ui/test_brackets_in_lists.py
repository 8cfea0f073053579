"""/history and /rewind show a message as it was written: its brackets were read as markup, so
'list[str]' showed as 'list', 'x[i]' as 'x' (and the rest in italics), '[red]' coloured the line."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.openai_server import Reply

from .repl_driver import drive

TYPED = "use list[str] and x[i] or [red]this[/red] here"


async def test_history_and_rewind_rows_keep_brackets(tmp_path: Path) -> None:
    run = await drive(tmp_path, lambda req: Reply.text("answer with a[i] and [bold]x[/bold]"),
                      [TYPED + "\r", "/history\r", "/rewind\r"])
    assert f"     0 you          {TYPED}\n" in run.out, run.out
    assert "     1 assistant    answer with a[i] and [bold]x[/bold]\n" in run.out, run.out
    assert f"    0  › {TYPED}\n" in run.out, run.out
