"""How a `deny_paths` pattern is matched, as docs/configuration.md says it: one without `/` against a
file's name, in any folder; one with `/` against the path from the top of the working directory (or
the whole path), so `secrets/*` covers the working directory's own `secrets/`, not a `secrets/` in a
folder below it nor in an `extra_dirs` folder; `*` crosses folders, so `*/secrets/*` covers a
`secrets/` folder anywhere."""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_agent.agent.safety.permissions import Permissions


@pytest.fixture
def fence(tmp_path: Path) -> tuple[Path, Path]:
    (cwd := tmp_path / "proj").mkdir()
    (shared := tmp_path / "shared").mkdir()
    return cwd.resolve(), shared.resolve()


def refused(cwd: Path, shared: Path, pattern: str, path: Path) -> bool:
    perms = Permissions(cwd, "yes", extra_dirs=[shared], deny_paths=[pattern])
    said = perms.read_refusal(path)
    assert said is None or "deny rule" in said
    return said is not None


def test_a_pattern_without_a_slash_matches_a_name_in_any_folder(fence: tuple[Path, Path]) -> None:
    cwd, shared = fence
    for path in (cwd / ".env", cwd / "sub" / "deep" / ".env", shared / ".env"):
        assert refused(cwd, shared, ".env", path), path
    assert not refused(cwd, shared, ".env", cwd / "sub" / ".env.example")


def test_a_pattern_with_a_slash_matches_from_the_top_of_the_working_directory(fence: tuple[Path, Path]) -> None:
    cwd, shared = fence
    assert refused(cwd, shared, "secrets/*", cwd / "secrets" / "key")
    assert refused(cwd, shared, "secrets/*", cwd / "secrets" / "a" / "b.txt")  # `*` crosses folders
    for path in (cwd / "sub" / "secrets" / "key", shared / "secrets" / "key"):
        assert not refused(cwd, shared, "secrets/*", path), path
    assert not refused(cwd, shared, "./secrets/*", cwd / "secrets" / "key")  # a path is matched without `./`


def test_a_leading_star_or_a_whole_path_reaches_other_folders(fence: tuple[Path, Path]) -> None:
    cwd, shared = fence
    for path in (cwd / "secrets" / "key", cwd / "sub" / "secrets" / "key", shared / "secrets" / "key"):
        assert refused(cwd, shared, "*/secrets/*", path), path
    assert refused(cwd, shared, f"{shared}/secrets/*", shared / "secrets" / "key")
    assert not refused(cwd, shared, f"{shared}/secrets/*", cwd / "secrets" / "key")
