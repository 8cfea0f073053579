"""An instruction file that is not read (a link out of the repository, not a regular file, one
that cannot be read) is said in one line each, with why: a `CLAUDE.md -> ~/notes/rules.md` was
missing from the system prompt and from `/memory` without a word."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest

from compact_agent.agent.integrations import instructions
from compact_agent.agent.integrations.instructions import load_instructions


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "rules.md").write_text("OUTSIDE RULES")
    return repo


def test_a_link_out_of_the_repository_is_said_left_out_and_why(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "CLAUDE.md").symlink_to(tmp_path / "outside" / "rules.md")
    (repo / "AGENTS.md").write_text("inside rules")
    found = load_instructions(repo, None)
    assert found.paths == [repo / "AGENTS.md"] and "OUTSIDE RULES" not in found.text
    assert found.left_out == [f"CLAUDE.md is left out of the instructions: it links to {tmp_path}/outside/rules.md, "
                              "outside the repository (instruction files are read only from inside it)"]


def test_the_user_level_file_is_said_by_its_path(tmp_path: Path) -> None:
    repo, user = _repo(tmp_path), tmp_path / "config"
    user.mkdir()
    (user / "AGENTS.md").symlink_to(tmp_path / "outside" / "rules.md")
    [line] = load_instructions(repo, user).left_out
    assert line.startswith(f"{user}/AGENTS.md is left out of the instructions: it links to ") and \
        line.endswith(", outside the user config folder (instruction files are read only from inside it)"), line


def test_files_that_are_not_there_or_counted_once_say_nothing(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "AGENTS.md").write_text("rules")
    (repo / "CLAUDE.md").symlink_to("AGENTS.md")  # the same file: counted once, nothing left out
    assert load_instructions(repo, None).left_out == []


def test_a_link_to_nothing_a_loop_and_a_fifo_are_each_said(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    pkg = repo / "pkg"
    pkg.mkdir()
    (repo / "AGENTS.md").symlink_to("gone.md")
    (repo / "CLAUDE.md").symlink_to("CLAUDE.md")
    os.mkfifo(pkg / "AGENTS.md")
    assert load_instructions(pkg, None).left_out == [
        f"{repo}/AGENTS.md is left out of the instructions: it links to {repo}/gone.md, which does not exist",
        f"{repo}/CLAUDE.md is left out of the instructions: it is a link that loops",
        "AGENTS.md is left out of the instructions: it is not a regular file (a folder, a FIFO or a device)",
    ]


def test_an_unreadable_file_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _repo(tmp_path)
    (repo / "CLAUDE.md").write_text("secret rules")
    (repo / "AGENTS.md").write_text("shared rules")
    # What the system says of a file the user may not read (a user who reads any file, root, is
    # told nothing of a mode 000 file): the refusal itself, for CLAUDE.md alone.
    read = instructions.read_capped

    def refused(path: Path, *args: Any, **kwargs: Any) -> bytes:
        if path.name == "CLAUDE.md":
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return read(path, *args, **kwargs)

    monkeypatch.setattr(instructions, "read_capped", refused)
    found = load_instructions(repo, None)
    assert found.left_out == ["CLAUDE.md is left out of the instructions: it cannot be read (Permission denied)"]
    assert "shared rules" in found.text and "secret rules" not in found.text  # the others are read
