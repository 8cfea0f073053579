"""The line the REPL ends with, the command that resumes the session, keeps within the terminal:
103 columns, it wrapped at 100 wherever the 100th column fell ('(or --continue for the newest' on
one line, 'newest)' on the next). It is 95 columns now, and narrower terminals get it broken between
its parts, the command to copy always whole on its line."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from compact_agent.ui.goodbye import resume_hint
from tests.fakes.openai_server import Reply

from .repl_driver import drive


@pytest.mark.parametrize("width", [100, 80, 50])
async def test_the_resume_hint_keeps_within_the_terminal(tmp_path: Path, width: int) -> None:
    console = Console(record=True, width=width, file=io.StringIO(), force_terminal=False)
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["hi\r"], console=console)
    lines = [line.rstrip() for line in run.out.splitlines()]
    at = next(i for i, line in enumerate(lines) if line.startswith("resume this session with:"))
    hint = lines[at:]
    [path] = (tmp_path / "home" / "projects").glob("*/*.jsonl")
    command = f"compact-agent --resume {path.stem}"
    assert all(len(line) <= width for line in hint), hint
    assert any(command in line for line in hint), hint  # whole, on one line
    assert hint[-1].strip().endswith("(or -c for the newest)"), hint


def test_the_hint_is_one_line_where_it_fits_and_a_long_id_stays_whole() -> None:
    sid = "20261204-051622-d6940a"
    assert resume_hint(sid, 100) == [f"resume this session with: compact-agent --resume {sid}  (or -c for the newest)"]
    assert resume_hint(sid, 80) == [f"resume this session with: compact-agent --resume {sid}",
                                    "  (or -c for the newest)"]
    long = "a-session-named-at-length-" * 3
    assert resume_hint(long, 60) == ["resume this session with:", f"  compact-agent --resume {long}",
                                     "  (or -c for the newest)"]
