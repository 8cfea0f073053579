"""A resumed session whose last message was long (a pasted log, a long paragraph) printed it whole
above the prompt: 26 lines at 120 columns for `-r ID` or `-c`. It is shown as its first rows and a
dim `… 22 more lines` (`… N more characters` for one long line), as a paste is one placeholder while
it is typed; a prompt of a few rows is shown whole, its lines under the first."""

from __future__ import annotations

import io
import re
from pathlib import Path

from rich.console import Console

from compact_agent.ui.prompt_excerpt import excerpt
from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .pty_driver import Terminal
from .repl_driver import drive, pasted

LOG = "\n".join(f"line {i}: something happened here in the log" for i in range(26))
PARAGRAPH = " ".join(f"word{i}" for i in range(500))  # ~3,900 characters on one line


def answer(req) -> Reply:
    return Reply.text("looked at it")


async def resumed(tmp_path: Path, prompt: str, width: int = 120) -> str:
    """What `-c` shows of a session whose one message was `prompt`, at `width` columns."""
    await drive(tmp_path, answer, [pasted(prompt) + "\r"])
    console = Console(record=True, width=width, file=io.StringIO(), force_terminal=False)
    run = await drive(tmp_path, answer, [], continue_last=True, console=console)
    return run.out.split("\n", 1)[1].split("⏺ looked at it", 1)[0]  # after the banner, before the answer


async def test_a_resumed_pasted_log_shows_its_first_lines(tmp_path: Path) -> None:
    shown = await resumed(tmp_path, LOG)
    assert shown.splitlines() == ["› line 0: something happened here in the log",
                                  *(f"  line {i}: something happened here in the log" for i in (1, 2, 3)),
                                  "  … 22 more lines"], shown


async def test_a_resumed_long_paragraph_shows_its_first_rows(tmp_path: Path) -> None:
    shown = await resumed(tmp_path, PARAGRAPH)
    rows = shown.splitlines()
    assert len(rows) <= 5 and rows[0].startswith("› word0 word1 "), shown
    assert re.fullmatch(r"  … [\d,]+ more characters", rows[-1]) and "word499" not in shown, shown


async def test_a_resumed_short_prompt_is_shown_whole(tmp_path: Path) -> None:
    shown = await resumed(tmp_path, "fix the parser\nand its tests\nthen run them")
    assert shown.splitlines() == ["› fix the parser", "  and its tests", "  then run them"], shown


def test_the_excerpt_counts_rows_at_the_width() -> None:
    assert excerpt("short", 80) == (["short"], "")
    six_rows = "x" * (78 * 6)  # six rows of 78 (80 less the mark): whole
    assert excerpt(six_rows, 80) == ([six_rows], "")
    head, rest = excerpt(six_rows + "x", 80)
    assert len(head) == 1 and head[0].endswith("…") and len(head[0]) <= 78 * 4, head
    assert rest == f"{len(six_rows) + 1 - len(head[0]) + 1:,} more characters"
    assert excerpt("a\n" + "b" * 400 + "\nc\nd", 80) == (["a"], "3 more lines")  # the long line does not fit in 4


def test_resume_by_id_in_a_terminal_shows_the_excerpt(tmp_path: Path) -> None:
    with FakeOpenAIServer(answer) as server:
        term = Terminal(tmp_path, server.base_url, cols=120, rows=50)
        try:
            at = term.prompt()
            term.type(pasted(LOG) + "\r")
            term.prompt(term.read_until("looked at it", at))
            assert term.finish() == 0
        finally:
            term.close()
        [path] = (tmp_path / "home" / "projects").glob("*/*.jsonl")
        term = Terminal(tmp_path, server.base_url, "-r", path.stem, cols=120, rows=50)
        try:
            start = term.read_until("/help for commands")
            end = term.read_until("looked at it", start)
            shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", term.text(start, end))
            assert "… 22 more lines" in shown and "line 3: " in shown and "line 4: " not in shown, shown
            term.prompt(end)
            assert term.finish() == 0
        finally:
            term.close()


def test_a_line_longer_than_the_width_wraps_under_its_text() -> None:
    """At 60 columns a resumed (or typed-ahead) prompt of a row and a half went on at column 0,
    under the mark; it wraps under its own text, as the input shows it."""
    from compact_agent.ui.prompt_excerpt import print_prompt

    console = Console(record=True, width=60, file=io.StringIO(), force_terminal=False)
    print_prompt(console, "first session question that is rather long and goes on and on about things\nsecond")
    assert console.export_text().splitlines() == [
        "› first session question that is rather long and goes on and", "  on about things", "  second"]
