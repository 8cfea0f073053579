"""`@a.md` where a.md is a link that loops (a repository can hold one: git keeps links): the
message goes, with a line saying the file was not attached and why, not Python's 'Symlink loop
from …' in place of the turn."""

from __future__ import annotations

import os
from pathlib import Path

from tests.fakes.openai_server import Reply
from tests.ui.repl_driver import drive


async def test_a_mention_of_a_link_that_loops_is_not_attached_and_the_message_goes(tmp_path: Path) -> None:
    cwd = tmp_path / "project"
    cwd.mkdir()
    os.symlink("b.md", cwd / "a.md")
    os.symlink("a.md", cwd / "b.md")
    sent: list[str] = []

    def model(req) -> Reply:
        sent.append(req.last_user_text())
        return Reply.text("ANSWERED")

    run = await drive(tmp_path, model, ["summarize @a.md please\r"])
    assert sent and "summarize @a.md please" in sent[0]
    assert "ANSWERED" in run.out
    assert "a.md: not attached (a link that loops" in run.out, run.out
    assert "Symlink loop from" not in run.out
