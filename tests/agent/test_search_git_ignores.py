"""grep and glob skip what git ignores, inside a git work tree, and say what they skipped: a
project's generated `build/` no longer fills a glob of `**/*.py`, nor a 50 MB log a grep's time."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from compact_agent.agent.safety.permissions import Permissions
from compact_agent.agent.tools.base import ToolEnv
from compact_agent.agent.tools.file_state import ReadFileState
from compact_agent.agent.tools.search import glob_impl, grep_impl
from compact_agent.config import Settings

pytestmark = pytest.mark.usefixtures("home")  # a HOME of the test's own (conftest.py)


def project(root: Path, repository: bool = True) -> ToolEnv:
    """A project with a generated tree git ignores: build/ (200 .py files), app.log, and src/."""
    root.mkdir()
    if repository:
        (root / ".git" / "info").mkdir(parents=True)
    (root / ".gitignore").write_text("build/\n*.log\n")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("needle = 1\n")
    (root / "build").mkdir()
    for i in range(200):
        (root / "build" / f"gen{i:03d}.py").write_text("needle = 2\n")
    (root / "app.log").write_text("needle in the log\n")
    return ToolEnv(root, Settings(), ReadFileState(), Permissions(root, "yes"))


def test_glob_and_grep_skip_what_gitignore_ignores_and_say_so(tmp_path: Path) -> None:
    env = project(tmp_path / "work")
    assert glob_impl(env, "**/*.py").splitlines() == [
        "src/app.py",
        "[1 entry git ignores not listed: build/; give one as the path to search it]"]
    assert grep_impl(env, "needle").splitlines() == [
        "src/app.py:1:needle = 1",
        "[2 entries git ignores not searched: app.log, build/; give one as the path to search it]"]


def test_an_ignored_path_named_is_searched(tmp_path: Path) -> None:
    env = project(tmp_path / "work")
    (env.cwd / "build" / "trace.log").write_text("needle in a log in build\n")
    assert grep_impl(env, "needle", "app.log") == "app.log:1:needle in the log"
    out = grep_impl(env, "needle", "build").splitlines()
    # the folder named is searched; inside it, the other rules still hold (*.log)
    assert len(out) == 201 and out[0] == "build/gen000.py:1:needle = 2", out[:3]
    assert out[-1] == "[1 entry git ignores not searched: build/trace.log; give one as the path to search it]"
    assert len(glob_impl(env, "build/*.py").splitlines()) == 200  # all listed, nothing said of build/


def test_a_deeper_gitignore_and_info_exclude_and_the_global_excludes_file(tmp_path: Path, home: Path) -> None:
    env = project(tmp_path / "work")
    (env.cwd / "src" / ".gitignore").write_text("!keep.log\nlocal_*.py\n")
    (env.cwd / "src" / "keep.log").write_text("needle kept\n")
    (env.cwd / "src" / "local_x.py").write_text("needle local\n")
    (env.cwd / ".git" / "info" / "exclude").write_text("scratch/\n")
    (env.cwd / "scratch").mkdir()
    (env.cwd / "scratch" / "s.py").write_text("needle scratch\n")
    (home / ".gitconfig").write_text('[user]\n\tname = x\n[core]\n\texcludesFile = "~/my ignores"  # ours\n')
    (home / "my ignores").write_text("*.bak\n")
    (env.cwd / "src" / "old.bak").write_text("needle old\n")
    (env.cwd / "src" / "zz.bak").write_text("needle zz\n")
    out = grep_impl(env, "needle").splitlines()
    assert out[:2] == ["src/app.py:1:needle = 1", "src/keep.log:1:needle kept"], out
    assert out[2] == ("[6 entries git ignores not searched: app.log, build/, scratch/, src/local_x.py, "
                      "src/old.bak and 1 more; give one as the path to search it]"), out


def test_the_default_global_excludes_file_is_read(tmp_path: Path, home: Path) -> None:
    env = project(tmp_path / "work")
    (home / ".config" / "git").mkdir(parents=True)
    (home / ".config" / "git" / "ignore").write_text("src/\n")
    assert glob_impl(env, "**/*.py").startswith("No files match '**/*.py' under .\n")


def test_outside_a_repository_nothing_is_skipped(tmp_path: Path) -> None:
    env = project(tmp_path / "work", repository=False)
    assert len(glob_impl(env, "**/*.py").splitlines()) == 201  # 200 of 201 listed, and the cap's line
    assert "app.log:1:needle in the log" in grep_impl(env, "needle", glob="*.log")


def test_a_repository_below_the_searched_folder_has_its_own_rules(tmp_path: Path) -> None:
    outer = tmp_path / "outer"
    outer.mkdir()
    env = ToolEnv(outer, Settings(), ReadFileState(), Permissions(outer, "yes"))
    project(outer / "inner")
    assert glob_impl(env, "**/*.py").splitlines() == [
        "inner/src/app.py", "[1 entry git ignores not listed: inner/build/; give one as the path to search it]"]


def test_a_fifo_in_place_of_a_gitignore_is_no_rule_and_no_wait(tmp_path: Path) -> None:
    env = project(tmp_path / "work")
    os.mkfifo(env.cwd / "src" / ".gitignore")
    assert grep_impl(env, "needle", "src") == "src/app.py:1:needle = 1"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a folder away takes root")
def test_a_git_folder_another_user_owns_hides_nothing(tmp_path: Path) -> None:
    env = project(tmp_path / "work")
    os.chown(env.cwd / ".git", 12345, 12345)
    assert len(glob_impl(env, "**/*.py").splitlines()) == 201
