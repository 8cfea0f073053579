"""`/resume` and `-r`'s list number the sessions only: a file under a session's name that is none
(`[1,2,3]`) was numbered first, as `0 messages  (no prompt)`, and picking it was refused (`not a
session file`). It is listed unnumbered, as `not a session file`, and number 1 is the newest session."""

from __future__ import annotations

import os
from pathlib import Path

from compact_agent.ui.sessions_list import SessionRow, numbered
from tests.fakes.openai_server import FakeOpenAIServer

from .pty_driver import Terminal, one_session
from .test_banner_and_picker_narrow import ok, shown
from .test_command_edges import show
from .test_commands_terminal import answer, session

JUNK = "20991231-000000-aaaaaa"
MARK = "not a session file (-r cannot open it; it is left as it is)"


def junk_beside(path: Path) -> None:
    junk = path.parent / f"{JUNK}.jsonl"
    junk.write_text("[1,2,3]\n")
    os.utime(junk, (path.stat().st_mtime + 60,) * 2)  # the newest file: it was number 1


def test_numbered_skips_a_file_that_is_no_session() -> None:
    rows = [SessionRow(JUNK, "2026-12-04 05:00", 0, "", not_a_session=True),
            SessionRow("20261204-040000-cccccc", "2026-12-04 04:00", 2, "fix it")]
    lines, sessions = numbered(rows, 120)
    assert lines == [f"     {JUNK}  2026-12-04 05:00  {MARK}",
                     "  1. 20261204-040000-cccccc  2026-12-04 04:00      2 messages  fix it"]
    assert sessions == rows[1:]


async def test_resume_lists_it_unnumbered_and_number_1_is_a_session(tmp_path: Path) -> None:
    with FakeOpenAIServer(answer) as server:
        first = session(tmp_path, server)
        await first.run_turn("the first session")
        first.close()
        junk_beside(first.store.path)
        s = session(tmp_path, server)
        try:
            await s.run_turn("the second session")
            listed = await show(s, "/resume")
            assert listed.startswith(f"{JUNK} ") and "not a session file" in listed, listed  # unnumbered
            assert "(no prompt)" not in listed and " 1. " in listed and " 2. " not in listed, listed
            assert await show(s, "/resume 2") == \
                "no session 2 in the list: there is 1 other session; /resume lists them"
            assert f"resumed session {first.session_id}" in await show(s, "/resume 1")
        finally:
            s.close()


def test_the_r_list_numbers_the_sessions_only(tmp_path: Path) -> None:
    with FakeOpenAIServer(ok) as server:
        one_session(tmp_path, server.base_url, "the real one")
        [real] = (tmp_path / "home" / "projects").glob("*/*.jsonl")
        junk_beside(real)
        term = Terminal(tmp_path, server.base_url, "-r")
        try:
            listed = term.read_until("resume it?")
            lines = shown(term, 0, listed)
            [mark] = [line for line in lines if JUNK in line]
            [one] = [line for line in lines if line.startswith("  1. ")]
            assert mark.startswith(f"     {JUNK}") and mark.endswith(MARK) and "the real one" in one, lines
            term.type("\r")
            term.prompt(listed)
            assert term.finish() == 0
        finally:
            term.close()
