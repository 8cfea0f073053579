"""At 60–70 columns the REPL's first line and the `-r` list fit the terminal. The banner was one
line the terminal broke inside `/help for` / `commands`; it now breaks between its items (without the
session id, which /status has). A row of `-r`'s list (and of `/resume`'s) wrapped in the middle of
the first prompt; it is cut to the width with `…`, and too narrow for the prompt, it drops the id
(the list is picked by number)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from rich.console import Console

from compact_agent.ui.repl_start import Start
from compact_agent.ui.sessions_list import SessionRow, format_row
from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .pty_driver import Terminal
from .repl_driver import drive

ASKED = "please look at the parser module and tell me why the tests of the tokenizer fail on windows"
SESSION = "20261203-165616-c1730f"


def ok(req) -> Reply:
    return Reply.text("ANSWERED")


def shown(term: Terminal, start: int = 0, end: int | None = None) -> list[str]:
    """The lines the terminal shows (the escape sequences left out)."""
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", term.text(start, end))
    return [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]


@pytest.mark.parametrize("cols", [60, 70])
def test_the_banner_and_the_resume_list_fit_the_terminal(tmp_path: Path, cols: int) -> None:
    with FakeOpenAIServer(ok) as server:
        term = Terminal(tmp_path, server.base_url, cols=cols, rows=40)
        try:
            banner = term.read_until("/help for commands")  # whole, on one line
            at = term.prompt(banner)
            assert all(len(line) < cols for line in shown(term, 0, at)), shown(term, 0, at)
            term.type(ASKED + "\r")
            term.prompt(term.read_until("ANSWERED", at))
            assert term.finish() == 0
        finally:
            term.close()
        term = Terminal(tmp_path, server.base_url, "-r", cols=cols, rows=40)
        try:
            listed = term.read_until("resume it?")
            [row] = [line for line in shown(term, 0, listed) if line.startswith("  1. ")]
            assert len(row) < cols and row.endswith("…") and "messages  please look at the" in row, row
            term.type("\r")
            term.prompt(listed)
            assert term.finish() == 0
        finally:
            term.close()


def test_the_banner_breaks_between_its_items() -> None:
    start = Start("deepseek-chat", 128_000, SESSION, False)
    assert start.banner(200) == f"compact-agent · deepseek-chat · window 128,000 · session {SESSION} · /help for commands"
    assert start.banner(80) == "compact-agent · deepseek-chat · window 128,000 · /help for commands"
    assert start.banner(60).splitlines() == ["compact-agent · deepseek-chat · window 128,000", "/help for commands"]
    assert all(len(line) < 40 for line in start.banner(40).splitlines())


def test_a_row_is_cut_to_the_width() -> None:
    row = SessionRow(SESSION, "2026-12-03 16:56", 2, ASKED)
    wide = format_row(1, row, fit=200)
    assert wide.startswith(f"  1. {SESSION}  2026-12-03 16:56      2 messages  please") and len(wide) < 140
    assert format_row(1, row, fit=100) == f"  1. {SESSION}  2026-12-03 16:56      2 messages  please look at the parser module…"
    assert format_row(1, row, fit=60) == "  1. 2026-12-03 16:56      2 messages  please look at the…"
    assert len(format_row(1, row, fit=30)) == 29
    unanswered = SessionRow(SESSION, "2026-12-03 16:56", 1, ASKED, unanswered=True)
    assert format_row(1, unanswered, fit=100).endswith("…  (unanswered)"), format_row(1, unanswered, fit=100)
    # a short prompt keeps its whole mark beside it: at 100 columns 'hi  (unanswered, tried 2 times)' was 'hi'
    retried = SessionRow(SESSION, "2026-12-03 16:56", 1, "hi", unanswered=True, folded=1)
    assert format_row(10, retried, fit=100).endswith("message   hi  (unanswered, tried 2 times)")
    # `compact-agent sessions` (ids to give -r) lists as before
    assert format_row(None, row) == f"  {SESSION}  2026-12-03 16:56      2 messages  {ASKED[:68].rsplit(' ', 1)[0]}…"


async def test_the_resume_command_lists_within_the_width(tmp_path: Path) -> None:
    await drive(tmp_path, ok, [ASKED + "\r"])
    await drive(tmp_path, ok, ["second session\r"])
    console = Console(record=True, width=64, file=io.StringIO(), force_terminal=False)
    run = await drive(tmp_path, ok, ["/resume\r"], console=console)
    [row] = [line for line in run.out.splitlines() if "please look at" in line]
    assert len(row) < 64 and row.endswith("…") and re.match(r"  \d\. 20", row), run.out
