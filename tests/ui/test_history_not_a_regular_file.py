"""A FIFO where the prompt history goes held the REPL at start for ever (its open for writing waited
for a reader): the start ends at once with a line naming the file (session/files.ensure_private_file)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from compact_agent.agent.run.options import session_root
from compact_agent.error_text import describe_error
from compact_agent.session import prompt_history
from tests.fakes.openai_server import Reply
from tests.session.test_private_file_not_regular import within

from .repl_driver import drive


async def test_a_fifo_for_the_history_ends_the_start_with_a_line_naming_it(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    root = session_root((tmp_path / "project").resolve(), tmp_path / "home")
    root.mkdir(parents=True, exist_ok=True)
    os.mkfifo(history := root / prompt_history.NAME)
    with within(10), pytest.raises(OSError) as e:
        await drive(tmp_path, lambda req: Reply.text("ok"), ["hi\r"])
    assert describe_error(e.value) == f"not a regular file: {history}"
