"""A resumed session whose last message was long (a pasted log, a long paragraph) printed it whole
above the prompt: 26 lines at 120 columns for `-r ID` or `-c`. A paste is shown as it was when it
was sent, its placeholder (`look: [pasted 26 lines] what failed?`: the REPL's record of what it
sent, sent_record.py); a long prompt that record does not know (sent before it was kept, or its
record gone) is shown as its first rows and a dim `… 22 more lines` (`… N more characters` for one
long line); a prompt of a few rows is shown whole, its lines under the first."""

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


async def resumed(tmp_path: Path, prompt: str, width: int = 120, keys: str | None = None,
                  record: bool = True) -> str:
    """What `-c` shows of a session whose one message was `prompt` (pasted, or typed as `keys`), at
    `width` columns; without its `record` of what was pasted, as a session sent before it was kept."""
    await drive(tmp_path, answer, [(keys if keys is not None else pasted(prompt)) + "\r"])
    if not record:
        for noted in (tmp_path / "home" / "projects").glob("*/sent_prompts/*.jsonl"):
            noted.unlink()
    console = Console(record=True, width=width, file=io.StringIO(), force_terminal=False)
    run = await drive(tmp_path, answer, [], continue_last=True, console=console)
    return run.out.split("\n", 1)[1].split("⏺ looked at it", 1)[0]  # after the banner, before the answer


async def test_a_resumed_paste_shows_as_its_placeholder(tmp_path: Path) -> None:
    shown = await resumed(tmp_path, LOG)
    assert shown.splitlines() == ["› [pasted 26 lines]"], shown


async def test_a_resumed_paste_with_words_around_it_shows_as_it_was_sent(tmp_path: Path) -> None:
    keys = "look: " + pasted(LOG) + " and " + pasted(LOG.upper()) + " what failed?"
    shown = await resumed(tmp_path, "", keys=keys)
    assert shown.splitlines() == ["› look: [pasted 26 lines] and [pasted 26 lines #2] what failed?"], shown


async def test_a_resumed_paragraph_pasted_shows_as_its_placeholder(tmp_path: Path) -> None:
    shown = await resumed(tmp_path, PARAGRAPH)
    assert re.fullmatch(r"› \[pasted [\d,]+ characters\]", shown.strip()), shown


async def test_a_resumed_pasted_log_without_its_record_shows_its_first_lines(tmp_path: Path) -> None:
    shown = await resumed(tmp_path, LOG, record=False)
    assert shown.splitlines() == ["› line 0: something happened here in the log",
                                  *(f"  line {i}: something happened here in the log" for i in (1, 2, 3)),
                                  "  … 22 more lines"], shown


async def test_a_resumed_long_paragraph_without_its_record_shows_its_first_rows(tmp_path: Path) -> None:
    shown = await resumed(tmp_path, PARAGRAPH, record=False)
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


def test_resume_by_id_in_a_terminal_shows_the_placeholder(tmp_path: Path) -> None:
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
            assert "› [pasted 26 lines]" in shown and "line 0: " not in shown, shown
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


def test_a_prompt_is_shown_by_its_record_only_when_the_record_gives_it_exactly(tmp_path: Path) -> None:
    """The record gives a prompt its placeholders back only where its words and paste lengths make
    that very prompt: a prompt typed as `[pasted 26 lines]` stays as typed, and so does one the
    record does not match (another text of the same length around other words)."""
    from compact_agent.ui import sent_record
    from compact_agent.ui.pastes import Pastes

    pastes = Pastes()
    line = f"look: {pastes.insert(LOG)} what failed?"
    sent_record.save(tmp_path, "s1", 1, "look: line 0", sent_record.note(line, pastes.held))
    sent_record.save(tmp_path, "s1", 2, "[pasted 26 lines]", sent_record.note("[pasted 26 lines]", {}))
    shown = sent_record.shown_as(tmp_path, "s1")
    assert shown(f"look: {LOG} what failed?") == "look: [pasted 26 lines] what failed?"
    assert shown("[pasted 26 lines]") == "[pasted 26 lines]"  # typed: no paste behind it
    other = f"look: {LOG.replace('happened', 'HAPPENED')} what now?"
    assert shown(other) == other
    assert sent_record.shown_as(tmp_path, "no-such-session")("x") == "x"


async def test_history_lists_a_prompt_with_a_paste_as_it_was_shown(tmp_path: Path) -> None:
    """`/history` listed the prompt by the log's first words ('line 0: something happened …'),
    the question typed after it cut off; it lists it as the screen showed it, also after `-c`."""
    keys = "look: " + pasted(LOG) + " what failed?\r"
    run = await drive(tmp_path, answer, [keys, "/history\r"])
    assert re.search(r"\n +0 you +look: \[pasted 26 lines\] what failed\?\n", run.out), run.out
    again = await drive(tmp_path, answer, ["/history\r"], continue_last=True)
    assert re.search(r"\n +0 you +look: \[pasted 26 lines\] what failed\?\n", again.out), again.out
