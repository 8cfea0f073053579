"""A FIFO where the prompt history goes held the REPL at start for ever (its open for writing waited
for a reader); then the start ended with a line naming the file. The REPL now runs without a history
to keep, and says so in one line (session/files.ensure_private_file refuses what is not a file)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from compact_agent.agent.run.options import session_root
from compact_agent.session import prompt_history
from tests.fakes.openai_server import Reply
from tests.session.test_private_file_not_regular import within

from .repl_driver import drive


async def test_a_fifo_for_the_history_leaves_the_repl_running_without_one(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "project").mkdir()
    root = session_root((tmp_path / "project").resolve(), tmp_path / "home")
    root.mkdir(parents=True, exist_ok=True)
    os.mkfifo(history := root / prompt_history.NAME)
    with within(10):
        run = await drive(tmp_path, lambda req: Reply.text("hello back"), ["hi\r"])
    assert "hello back" in run.out and run.prompts == ["hi"]
    said = capsys.readouterr().err
    assert said.strip() == f"compact-agent: no prompt history this session: not a regular file: {history}"
    assert history.is_fifo()  # left as it was
