"""Of two command files of one name, ours (`.compact-agent/commands/`) and Claude Code's
(`.claude/commands/`), a regular file goes before one that is not: a link left dangling, a FIFO or
a folder at ours hid a working `.claude/commands/review.md`, and `/review` failed ('cannot read …')
where Claude's file used to run. Of two regular files, ours still goes first."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from compact_agent.ui.custom_commands import custom_command, custom_commands
from tests.fakes.openai_server import Reply

from .repl_driver import drive


def folders(tmp_path: Path) -> tuple[Path, Path, Path]:
    project = tmp_path / "project"
    ours, claude = project / ".compact-agent" / "commands", project / ".claude" / "commands"
    ours.mkdir(parents=True)
    claude.mkdir(parents=True)
    return project, ours, claude


def dangling(p: Path) -> None:
    p.symlink_to(p.parent / "gone.md")


def fifo(p: Path) -> None:
    os.mkfifo(p)


def folder(p: Path) -> None:
    p.mkdir()


@pytest.mark.parametrize("make", [dangling, fifo, folder])
def test_a_regular_file_goes_before_one_of_the_same_name_that_is_not(
        tmp_path: Path, make: Callable[[Path], None]) -> None:
    project, ours, claude = folders(tmp_path)
    make(ours / "review.md")
    (claude / "review.md").write_text("Review the diff.\n")
    assert custom_command(project, "review") == claude / "review.md"


def test_of_two_regular_files_ours_goes_first_and_a_lone_odd_one_is_still_the_command(tmp_path: Path) -> None:
    project, ours, claude = folders(tmp_path)
    (ours / "review.md").write_text("Ours.\n")
    (claude / "review.md").write_text("Claude's.\n")
    dangling(claude / "lint.md")
    found = custom_commands(project)
    assert found["review"] == ours / "review.md"
    assert found["lint"] == claude / "lint.md"  # said not readable when run, not "unknown command"


async def test_the_repl_runs_claude_s_file_past_a_dangling_link_of_ours(tmp_path: Path) -> None:
    project, ours, claude = folders(tmp_path)
    dangling(ours / "review.md")
    (claude / "review.md").write_text("Review the diff in detail.\n")
    run = await drive(tmp_path, lambda req: Reply.text("reviewed"), ["/review\r"])
    assert "cannot read" not in run.out, run.out
    assert run.server.requests and "Review the diff in detail." in str(run.server.requests[-1]), run.out
