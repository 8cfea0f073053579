"""What a `deny_paths` rule covers is kept from the model's listings as well as from its reads: glob,
grep and read_file's listing of a folder leave the denied entries out (a denied folder is not
entered), and end with one line saying how many they left out, so the model knows the list is not
whole and does not go looking; grep reports no match inside a denied file, by its name or through a
link to it; a "did you mean" offers no denied name. The names listed showed `.env.local` and
`secrets/prod.pem` to the model, whose contents only were kept from it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from compact_agent.agent.safety.permissions import Permissions
from compact_agent.agent.tools.base import ToolEnv
from compact_agent.agent.tools.file_state import ReadFileState
from compact_agent.config import Settings

from .test_tools import call

DENIED_NAMES = (".env", ".env.local", "prod.pem", "dev.pem", "vault", "token.txt")


@pytest.fixture
def env(tmp_path: Path) -> ToolEnv:
    """A project with a denied `.env*` beside code, a denied `secrets/` folder's files, and a folder
    `vault` a rule matches by its name (its file `token.txt` is under no rule of its own)."""
    cwd = (tmp_path / "proj").resolve()
    (cwd / "src").mkdir(parents=True)
    (cwd / "secrets").mkdir()
    (cwd / "vault").mkdir()
    (cwd / ".env").write_text("API_KEY=one\n")
    (cwd / ".env.local").write_text("API_KEY=two\n")
    (cwd / "app.py").write_text("API_KEY = read_from_env()\n")
    (cwd / "src" / "main.py").write_text("print('API_KEY is set')\n")
    (cwd / "secrets" / "prod.pem").write_text("API_KEY=three\n")
    (cwd / "secrets" / "dev.pem").write_text("API_KEY=four\n")
    (cwd / "vault" / "token.txt").write_text("API_KEY=five\n")
    perms = Permissions(cwd, "yes", deny_paths=[".env*", "secrets/**", "vault"])
    return ToolEnv(cwd, Settings(), ReadFileState(), perms)


def names_none_denied(out: str) -> None:
    for name in DENIED_NAMES:
        assert name not in out, (name, out)
    assert "API_KEY=" not in out, out


async def test_glob_lists_no_denied_entry_and_says_how_many_it_left_out(env: ToolEnv) -> None:
    out = await call(env, "glob", pattern="**/*")
    names_none_denied(out)
    # .env, .env.local, secrets/dev.pem, secrets/prod.pem, and the folder vault (not entered)
    assert sorted(out.splitlines()[:-1]) == ["app.py", "src/main.py"], out
    assert out.splitlines()[-1] == "5 entries hidden by deny_paths", out


async def test_glob_counts_only_the_denied_entries_its_pattern_would_have_listed(env: ToolEnv) -> None:
    out = await call(env, "glob", pattern="**/*.py")  # vault is entered by no glob of it: still counted
    assert sorted(out.splitlines()) == ["1 entry hidden by deny_paths", "app.py", "src/main.py"], out
    out = await call(env, "glob", pattern="*.pem", path="secrets")
    assert out == "No files match '*.pem' under secrets\n2 entries hidden by deny_paths", out
    out = await call(env, "glob", pattern=".env*")
    assert out == "No files match '.env*' under .\n2 entries hidden by deny_paths", out


async def test_grep_reports_no_match_and_no_name_of_a_denied_file(env: ToolEnv) -> None:
    out = await call(env, "grep", pattern="API_KEY")
    names_none_denied(out)
    assert out.splitlines() == ["app.py:1:API_KEY = read_from_env()", "src/main.py:1:print('API_KEY is set')",
                                "5 entries hidden by deny_paths, not searched"], out
    out = await call(env, "grep", pattern="API_KEY=")
    assert out == "No matches for 'API_KEY=' in .\n5 entries hidden by deny_paths, not searched", out


async def test_grep_finds_nothing_through_a_link_to_a_denied_file(env: ToolEnv) -> None:
    os.symlink(env.cwd / ".env", env.cwd / "settings.txt")  # a name under no rule, leading to one that is
    out = await call(env, "grep", pattern="API_KEY=", glob="*.txt")
    assert out == "No matches for 'API_KEY=' in . (files matching *.txt)\n1 entry hidden by deny_paths, not searched", out


async def test_grep_with_a_glob_counts_the_denied_files_the_glob_takes(env: ToolEnv) -> None:
    out = await call(env, "grep", pattern="API_KEY", glob="*.pem")
    assert out == "No matches for 'API_KEY' in . (files matching *.pem)\n3 entries hidden by deny_paths, not searched", out


async def test_read_file_lists_a_folder_without_its_denied_entries(env: ToolEnv) -> None:
    out = await call(env, "read_file", path=".")
    names_none_denied(out)
    assert out.splitlines() == [". is a directory (3 entries); read a file in it instead:",
                                "secrets/", "src/", "app.py", "3 entries hidden by deny_paths"], out
    out = await call(env, "read_file", path="secrets")
    assert out == "secrets is a directory with nothing in it to read: 2 entries hidden by deny_paths", out


async def test_a_folder_with_nothing_denied_is_listed_as_before(env: ToolEnv) -> None:
    out = await call(env, "read_file", path="src")
    assert out == "src is a directory (1 entry); read a file in it instead:\nmain.py", out


async def test_did_you_mean_offers_no_denied_name(env: ToolEnv) -> None:
    out = await call(env, "read_file", path=".enc")
    assert out == "File not found: .enc", out  # .env and .env.local are close, and denied
    out = await call(env, "read_file", path="app.pyy")
    assert out == "File not found: app.pyy. Did you mean: app.py?", out
