"""Every problem of a configuration in one line, as the bad values already were: two config files
that are not TOML, a bad `trusted_projects` beside other bad values, two pairs of settings that
contradict each other, two `extra_dirs` that are files, each stopped start-up alone, and the next
was said once the first was fixed. `trusted_projects` that is not a list of paths was said in
Python's form (`not '/home/me/p'`, `not [3]`), and one in a project file was ignored without a
word."""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_agent.settings_file import PROJECT_FILE, load
from tests.settings_cases import refused

NOT_TOML = "not valid TOML (Expected '=' after a key in a key/value pair (at line 1, column 7))"
LOWER = "lower the first or raise the second"


def test_two_files_that_are_not_toml_are_both_said(user_config: Path, tmp_path: Path) -> None:
    user_config.write_text("model deepseek-chat\n")
    (tmp_path / PROJECT_FILE).write_text("model gpt-4o\n")
    assert refused(tmp_path) == (f"{user_config}: {NOT_TOML} (named by COMPACT_AGENT_CONFIG); "
                                 f"{tmp_path / PROJECT_FILE}: {NOT_TOML}")


def test_a_file_that_is_not_toml_is_said_with_the_other_bad_values(user_config: Path, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    user_config.write_text("model deepseek-chat\n")
    monkeypatch.setenv("COMPACT_AGENT_MAX_RETRIES", "many")
    assert refused(tmp_path) == (f"{user_config}: {NOT_TOML} (named by COMPACT_AGENT_CONFIG); bad value for max_retries (from env "
                                 "COMPACT_AGENT_MAX_RETRIES): expected a whole number from 0 to 10, not 'many'")


@pytest.mark.parametrize(("written", "said"), [
    ('"/home/me/p"', "not '/home/me/p'"), ("3", "not 3"), ('["/home/me/p", 3]', "and item 2 is 3"),
    ("[{path = '/p'}]", "and item 1 is a table"),
])
def test_a_bad_trusted_projects_is_said_with_the_other_bad_values(user_config: Path, tmp_path: Path,
                                                                  written: str, said: str) -> None:
    user_config.write_text(f"trusted_projects = {written}\nautocompact_buffer = -5\n")
    assert refused(tmp_path) == (
        f"bad values for 2 settings (from {user_config}): trusted_projects: expected a list of directory paths "
        f"(trusted_projects = [\"/home/me/project\"]), {said}; autocompact_buffer: must be 0 or more tokens (such "
        "as 32000, 32k or 128K), not -5")


def test_trusted_projects_in_a_project_file_is_a_warning(user_config: Path, tmp_path: Path) -> None:
    (tmp_path / PROJECT_FILE).write_text(f"trusted_projects = [{str(tmp_path)!r}]\n")
    loaded = load(tmp_path)
    assert not loaded.trusted
    assert loaded.warnings == [f"{tmp_path / PROJECT_FILE}: trusted_projects is read only from the user file "
                               f"({user_config}); ignored"]


def test_every_pair_that_contradicts_is_said(user_config: Path, tmp_path: Path) -> None:
    user_config.write_text("collapse_commit_fraction = 0.99\nmemory_min_tokens = 50000\nmemory_max_tokens = 10\n")
    assert refused(tmp_path) == (
        f"collapse_commit_fraction = 0.99 (from {user_config}) must be at most collapse_blocking_fraction = 0.95 "
        f"(the default): {LOWER}; memory_min_tokens = 50000 must be at most memory_max_tokens = 10 (both from "
        f"{user_config}): {LOWER}")


def test_contradictions_and_extra_dirs_that_are_files_are_said_together(user_config: Path, tmp_path: Path) -> None:
    for name in ("a.txt", "b.txt"):
        (tmp_path / name).write_text("x")
    user_config.write_text('memory_min_tokens = 50000\nmemory_max_tokens = 10\nextra_dirs = ["a.txt", "b.txt"]\n')
    assert refused(tmp_path) == (
        f"memory_min_tokens = 50000 must be at most memory_max_tokens = 10 (both from {user_config}): {LOWER}; "
        f"bad value for extra_dirs (from {user_config}): a.txt and b.txt are files, not folders; list folders there")
