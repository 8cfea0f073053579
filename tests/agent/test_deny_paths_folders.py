"""A `deny_paths` rule that matches a folder covers what is in it: `vault` (or `.aws`) kept the
folder's listing from the model but let read_file, grep, write_file and edit_file reach
`vault/token.txt`, whose own path no rule matched. Only folders inside the working directory or a
granted dir count, below the root itself: a name rule that matches a folder above the project, or
the project's own folder, fences off nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_agent.agent.safety.names import folded
from compact_agent.agent.safety.permissions import Permissions
from compact_agent.agent.tools.base import ToolEnv
from compact_agent.agent.tools.file_state import ReadFileState
from compact_agent.config import Settings

from .test_tools import call


def tool_env(cwd: Path, rules: list[str], extra: list[Path] | None = None) -> ToolEnv:
    return ToolEnv(cwd, Settings(), ReadFileState(), Permissions(cwd, "yes", extra_dirs=extra or [], deny_paths=rules))


async def test_a_rule_matching_a_folder_keeps_every_file_tool_from_what_is_in_it(tmp_path: Path) -> None:
    cwd = (tmp_path / "proj").resolve()
    (cwd / "vault" / "deep").mkdir(parents=True)
    (cwd / "vault" / "token.txt").write_text("TOKEN=five\n")
    (cwd / "vault" / "deep" / "key.txt").write_text("TOKEN=six\n")
    env = tool_env(cwd, ["vault"])
    refused = f"permission denied: {cwd / 'vault' / 'token.txt'} matches deny rule 'vault'"
    assert await call(env, "read_file", path="vault/token.txt") == refused
    assert await call(env, "grep", pattern="TOKEN", path="vault/token.txt") == refused
    assert await call(env, "read_file", path="vault/deep/key.txt") \
        == f"permission denied: {cwd / 'vault' / 'deep' / 'key.txt'} matches deny rule 'vault'"
    assert (await call(env, "write_file", path="vault/new.txt", content="x\n")).startswith("permission denied:")
    assert not (cwd / "vault" / "new.txt").exists()
    assert (await call(env, "edit_file", path="vault/token.txt", old_string="five", new_string="x")).startswith(
        "permission denied:")
    assert (cwd / "vault" / "token.txt").read_text() == "TOKEN=five\n"


async def test_a_rule_with_a_slash_covers_the_folder_it_names(tmp_path: Path) -> None:
    cwd = (tmp_path / "proj").resolve()
    (cwd / "config" / "prod").mkdir(parents=True)
    (cwd / "config" / "prod" / "db.txt").write_text("PASSWORD=x\n")
    (cwd / "config" / "dev.txt").write_text("PASSWORD=dev\n")
    env = tool_env(cwd, ["config/prod"])
    assert (await call(env, "read_file", path="config/prod/db.txt")).startswith("permission denied:")
    assert "PASSWORD=dev" in await call(env, "read_file", path="config/dev.txt")


async def test_a_rule_matching_the_project_or_a_folder_above_it_fences_off_nothing_else(tmp_path: Path) -> None:
    cwd = (tmp_path / "work" / "proj").resolve()
    (cwd / "src").mkdir(parents=True)
    (cwd / "src" / "app.py").write_text("print('hi')\n")
    for rule in ("work", "proj", "src"):
        out = await call(tool_env(cwd, [rule]), "read_file", path="src/app.py")
        assert ("permission denied" in out) == (rule == "src"), (rule, out)


async def test_in_a_granted_dir_a_folder_below_it_counts_and_the_dir_itself_does_not(tmp_path: Path) -> None:
    cwd = (tmp_path / "proj").resolve()
    cwd.mkdir()
    shared = (tmp_path / "vault").resolve()  # a granted dir named as the rule is: its files stay readable
    (shared / "keys").mkdir(parents=True)
    (shared / "notes.txt").write_text("shared notes\n")
    (shared / "keys" / "id.txt").write_text("KEY=x\n")
    env = tool_env(cwd, ["vault", "keys"], extra=[shared])
    assert "shared notes" in await call(env, "read_file", path=str(shared / "notes.txt"))
    assert (await call(env, "read_file", path=str(shared / "keys" / "id.txt"))).startswith("permission denied:")


async def test_a_walk_matches_each_entry_a_number_of_times_its_depth_does_not_raise(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """grep and glob ask deny_paths about each entry they walk by itself, not again about every
    folder above it (a folder a rule matches is never entered), and what covers a folder is worked
    out once: matching every folder above every file made grep on a large project run out of time.
    Counted by the names matched (each folded once per check), so the test does not time anything."""
    cwd = (tmp_path / "proj").resolve()
    folder = cwd
    for level in "abcdefghij":  # ten folders deep, five files in each, and a denied one in each
        folder /= level
        folder.mkdir(parents=True)
        for f in range(5):
            (folder / f"f{f}.py").write_text("needle\n")
        (folder / ".env").write_text("needle\n")
    entries = 10 * 7
    folds: list[str] = []

    def counting(name: Path | str) -> str:
        folds.append(str(name))
        return folded(name)

    monkeypatch.setattr("compact_agent.agent.safety.deny_rules.folded", counting)
    env = tool_env(cwd, [".env", "*.pem", "secrets", "vault/*", "*.key"])
    out = await call(env, "grep", pattern="needle")
    assert out.count("needle") == 50 and "10 entries hidden by deny_paths" in out, out
    assert len(folds) <= 8 * entries, len(folds)  # 12,000 and more when every folder above each entry is matched again
    folds.clear()
    out = await call(env, "glob", pattern="**/*.py")
    assert out.count(".py") == 50 and ".env" not in out, out
    assert len(folds) <= 4 * entries, len(folds)


async def test_with_the_folder_above_granted_the_working_directory_s_own_name_still_matches_nothing(
        tmp_path: Path) -> None:
    cwd = (tmp_path / "src").resolve()  # extra_dirs = [".."]: the project's folder lies inside a granted dir
    (cwd / "lib" / "src").mkdir(parents=True)
    (cwd / "main.py").write_text("x = 1\n")
    (cwd / "lib" / "src" / "gen.py").write_text("y = 2\n")
    env = tool_env(cwd, ["src"], extra=[tmp_path.resolve()])
    assert "x = 1" in await call(env, "read_file", path="main.py")
    assert "x = 1" in await call(env, "grep", pattern="x = 1", path="main.py")
    # A folder of that name inside the project is still covered.
    assert (await call(env, "read_file", path="lib/src/gen.py")).startswith("permission denied:")
