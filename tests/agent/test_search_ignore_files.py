"""The ignore files grep and glob read as git reads them: a line git passes over is dropped alone
(no search fails, no rule's text reaches the model), a byte-order mark does not hide the first
rule, and a symlinked `.gitignore` or `info/exclude` is not followed out of the project."""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_agent.agent.safety.permissions import Permissions
from compact_agent.agent.tools.base import ToolEnv
from compact_agent.agent.tools.file_state import ReadFileState
from compact_agent.agent.tools.search import glob_impl, grep_impl
from compact_agent.config import Settings

pytestmark = pytest.mark.usefixtures("home")  # a HOME of the test's own (conftest.py)


def project(root: Path) -> ToolEnv:
    """A repository with src/app.py and a generated build/gen.py, both holding `needle`."""
    (root / ".git" / "info").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("needle = 1\n")
    (root / "build").mkdir()
    (root / "build" / "gen.py").write_text("needle = 2\n")
    return ToolEnv(root, Settings(), ReadFileState(), Permissions(root, "yes"))


SKIPPED = "[1 entry git ignores not searched: build/; give one as the path to search it]"


@pytest.mark.parametrize("line", ["\\", "!", "a\\", "[z-a]", "build/[z-a]x"])
@pytest.mark.parametrize("where", [".gitignore", ".git/info/exclude", "home/.config/git/ignore"])
def test_a_line_git_passes_over_is_dropped_alone(tmp_path: Path, home: Path, line: str, where: str) -> None:
    env = project(tmp_path / "work")
    rules = home / ".config" / "git" / "ignore" if where.startswith("home/") else env.cwd / where
    rules.parent.mkdir(parents=True, exist_ok=True)
    rules.write_text(f"{line}\nbuild/\n{line}\n")
    assert grep_impl(env, "needle").splitlines() == ["src/app.py:1:needle = 1", SKIPPED]
    assert glob_impl(env, "**/*.py").splitlines() == [
        "src/app.py", "[1 entry git ignores not listed: build/; give one as the path to search it]"]


def test_a_byte_order_mark_does_not_hide_the_first_rule(tmp_path: Path) -> None:
    env = project(tmp_path / "work")
    (env.cwd / ".gitignore").write_bytes(b"\xef\xbb\xbfbuild/\r\n")
    assert grep_impl(env, "needle").splitlines() == ["src/app.py:1:needle = 1", SKIPPED]


def outside(tmp_path: Path) -> Path:
    """A file outside the project whose lines would ignore everything, one of them no rule git keeps."""
    secret = tmp_path / "outside.txt"
    secret.write_text("*.py\nbuild/\npassword = hunter2\\\n")
    return secret


def test_a_symlinked_gitignore_above_the_path_is_not_followed(tmp_path: Path) -> None:
    env = project(tmp_path / "work")
    (env.cwd / "src" / ".gitignore").symlink_to(outside(tmp_path))
    (env.cwd / "src" / "inner").mkdir()
    (env.cwd / "src" / "inner" / "a.py").write_text("needle = 3\n")
    assert grep_impl(env, "needle", "src/inner") == "src/inner/a.py:1:needle = 3"
    assert glob_impl(env, "src/inner/*.py") == "src/inner/a.py"


def test_a_symlinked_info_exclude_is_not_followed(tmp_path: Path) -> None:
    env = project(tmp_path / "work")
    (env.cwd / ".git" / "info" / "exclude").symlink_to(outside(tmp_path))
    out = grep_impl(env, "needle")
    assert out.splitlines() == ["build/gen.py:1:needle = 2", "src/app.py:1:needle = 1"], out
    assert "hunter2" not in out


def test_the_users_own_excludes_file_is_followed_when_a_link(tmp_path: Path, home: Path) -> None:
    env = project(tmp_path / "work")
    (home / "dotfiles").mkdir()
    (home / "dotfiles" / "ignore").write_text("build/\n")
    (home / ".config" / "git").mkdir(parents=True)
    (home / ".config" / "git" / "ignore").symlink_to(home / "dotfiles" / "ignore")
    assert grep_impl(env, "needle").splitlines() == ["src/app.py:1:needle = 1", SKIPPED]
