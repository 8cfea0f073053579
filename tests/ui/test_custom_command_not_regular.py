"""A custom command whose file is not a regular file (a FIFO, a folder) is the project's command all
the same: running it says in one line that its file is not a regular file and was not read, where
it said "unknown command" of a name the user sees in `.claude/commands/`; /help says it is not run;
and nothing waits on the FIFO (opening one for reading waits for a writer)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from compact_agent.ui.command_registry import CommandError
from compact_agent.ui.custom_commands import custom_command, custom_prompt, described
from tests.fakes.openai_server import Reply

from .repl_driver import drive


def commands_dir(tmp_path: Path) -> Path:
    d = tmp_path / "project" / ".claude" / "commands"
    d.mkdir(parents=True)
    return d


def test_a_fifo_command_is_refused_in_one_line_without_waiting_for_a_writer(tmp_path: Path) -> None:
    os.mkfifo(fifo := commands_dir(tmp_path) / "x.md")
    path = custom_command(tmp_path / "project", "x")
    assert path == fifo
    said: list[str] = []

    def run() -> None:
        with pytest.raises(CommandError) as e:
            custom_prompt(fifo, "")
        said.append(str(e.value))

    t = threading.Thread(target=run, daemon=True)  # a blocking open would hold it: it is left, not waited on
    t.start()
    t.join(timeout=30)
    assert not t.is_alive(), "opening the command's FIFO waited for a writer"
    assert said == [f"/x is not run: {fifo} is not a regular file (a FIFO); it was not read"], said
    assert described(fifo) == "not run: not a regular file (a FIFO)"


async def test_the_repl_says_a_fifo_or_folder_command_file_is_not_read(tmp_path: Path) -> None:
    commands = commands_dir(tmp_path)
    os.mkfifo(commands / "x.md")
    (commands / "deploy.md").mkdir()
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["/x\r", "/deploy\r", "/help\r"])
    flat = " ".join(run.out.split())
    assert "unknown command" not in run.out, run.out
    assert f"/x is not run: {commands / 'x.md'} is not a regular file (a FIFO); it was not read" in flat, run.out
    assert f"/deploy is not run: {commands / 'deploy.md'} is not a regular file (a folder); it was not read" in flat
    assert "/x not run: not a regular file (a FIFO) (custom: .claude/commands/x.md)" in flat, run.out
    assert not run.server.requests  # nothing was sent
