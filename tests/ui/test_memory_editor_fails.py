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


@pytest.mark.parametrize(("name", "editor", "said"), [
    ("EDITOR", "/nonexistent/editor", "could not start $EDITOR (/nonexistent/editor): no such program; the file is "),
    ("EDITOR", "false", "$EDITOR (false) ended with exit code 1; the file is "),
    # shlex's words ('No closing quotation') were the line's: now what is wrong, naming the variable used
    ("EDITOR", "vim '-c", "$EDITOR (vim '-c) is not a command line: a quote in it is not closed; the file is "),
    ("VISUAL", 'vim "', '$VISUAL (vim ") is not a command line: a quote in it is not closed; the file is '),
    ("EDITOR", "vim \\", "$EDITOR (vim \\) is not a command line: it ends in a lone backslash; the file is "),
])
async def test_an_editor_that_fails_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str,
                                                editor: str, said: str) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", "true" if name == "VISUAL" else editor)  # $VISUAL goes first where set
    monkeypatch.setenv(name, editor)
    (tmp_path / "project").mkdir()
    agents = tmp_path / "project" / "AGENTS.md"
    agents.write_text("# notes\n")
    run = await drive(tmp_path, answer, ["/memory 1\r"])
    assert said + str(agents) in run.out, run.out
    assert "edited" not in run.out and "No such file or directory" not in run.out, run.out
    assert "quotation" not in run.out and "escaped" not in run.out, run.out


async def test_a_blank_editor_is_no_editor_and_the_file_is_not_run(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """An $EDITOR of spaces split into no words, and the instruction file itself was started as the
    program (an executable AGENTS.md of the repository's would have run)."""
    monkeypatch.setenv("VISUAL", "   ")
    monkeypatch.setenv("EDITOR", " ")
    (tmp_path / "project").mkdir()
    agents = tmp_path / "project" / "AGENTS.md"
    ran = tmp_path / "ran"
    agents.write_text(f"#!/bin/sh\ntouch {ran}\n")
    agents.chmod(0o755)
    run = await drive(tmp_path, answer, ["/memory 1\r"])
    assert "set $EDITOR to open files from here; the file is " + str(agents) in run.out, run.out
    assert not ran.exists()


async def test_the_editor_runs_without_the_provider_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The editor /memory starts reads the project's own settings (`.exrc`, `.nvim.lua`), which a
    command the model ran could have written; it got the provider key in its environment, as the
    model's commands do not."""
    key = "sk-editorKEY0123456789abcdefXYZ"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    seen = tmp_path / "seen-by-the-editor.txt"
    editor = tmp_path / "editor.sh"
    editor.write_text(f"#!/bin/sh\nenv > {seen}\n")
    editor.chmod(0o755)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", str(editor))
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "AGENTS.md").write_text("# notes\n")
    await drive(tmp_path, answer, ["/memory 1\r"])
    ran = seen.read_text()
    assert "PATH=" in ran and key not in ran and "OPENAI_API_KEY" not in ran
