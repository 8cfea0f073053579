"""`/memory N` with an editor that cannot start, or that fails, says so in one line naming the
variable and the file: a missing program said only 'No such file or directory: vim-nox', and an
editor that exited with an error was taken for an edit ('edited …')."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import Reply

from .repl_driver import drive


def answer(req: Any) -> Reply:
    return Reply.text("ok")


@pytest.mark.parametrize(("editor", "said"), [
    ("/nonexistent/editor", "could not start $EDITOR (/nonexistent/editor): no such program; the file is "),
    ("false", "$EDITOR (false) ended with exit code 1; the file is "),
    ("vim '-c", "$EDITOR is not a command line (No closing quotation: vim '-c); the file is "),
])
async def test_an_editor_that_fails_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, editor: str,
                                                said: str) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", editor)
    (tmp_path / "project").mkdir()
    agents = tmp_path / "project" / "AGENTS.md"
    agents.write_text("# notes\n")
    run = await drive(tmp_path, answer, ["/memory 1\r"])
    assert said + str(agents) in run.out, run.out
    assert "edited" not in run.out and "No such file or directory" not in run.out, run.out
