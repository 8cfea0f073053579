"""A folder swapped for a link out of the project after the fence checked it lists none of the
names where the link leads: not in read_file's listing of a folder, not in the names a "did you
mean" offers, not in grep's or glob's walk. The swap is made right after the check (the fence's
answer, or the walk's look at whether a folder is compact-agent's own) by wrapping it, a moment
that comes as well when the names are read by path."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from compact_agent.agent.tools.base import ToolEnv

from .test_swapped_links import SWAPPED, link_folder, linux_only
from .test_tools import call

SECRET_NAME = "secret-name.txt"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    d = tmp_path / "outside"
    (d / "inner").mkdir(parents=True)
    (d / SECRET_NAME).write_text("x\n")
    (d / "inner" / SECRET_NAME).write_text("x\n")
    return d


def after(monkeypatch: pytest.MonkeyPatch, env: ToolEnv, method: str, when: Path,
          swap: Callable[[], None], nth: int = 1) -> None:
    """Make `swap` happen once, just after env.permissions' `method` has answered for `when` the
    `nth` time."""
    real, seen = getattr(env.permissions, method), []

    def wrapped(path: Path) -> object:
        answer = real(path)
        if path == when.resolve():
            seen.append(path)
            if len(seen) == nth:
                swap()
        return answer

    monkeypatch.setattr(env.permissions, method, wrapped)


async def test_a_folder_swapped_after_the_check_is_not_listed(env: ToolEnv, work: Path, outside: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    (work / "sub").mkdir()
    # read_file asks the fence twice: whether it is an image, then for its text
    after(monkeypatch, env, "read_refusal", work / "sub", link_folder(work / "sub", outside), nth=2)
    out = await call(env, "read_file", path="sub")
    assert SECRET_NAME not in out
    assert out == f"read_file refused: {work.resolve() / 'sub'} {SWAPPED}"


async def test_no_name_is_offered_from_a_folder_swapped_after_the_check(
        env: ToolEnv, work: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (work / "sub").mkdir()
    after(monkeypatch, env, "read_refusal", work / "sub" / "secret-nam.txt", link_folder(work / "sub", outside), nth=2)
    out = await call(env, "read_file", path="sub/secret-nam.txt")
    assert out == "File not found: sub/secret-nam.txt"


async def test_glob_refuses_a_root_swapped_after_the_check(env: ToolEnv, work: Path, outside: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    (work / "sub").mkdir()
    after(monkeypatch, env, "read_refusal", work / "sub", link_folder(work / "sub", outside))
    out = await call(env, "glob", pattern="*.txt", path="sub")
    assert SECRET_NAME not in out
    assert out == f"glob refused: {work.resolve() / 'sub'} {SWAPPED}"


async def test_grep_refuses_a_root_swapped_after_the_check(env: ToolEnv, work: Path, outside: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    (work / "sub").mkdir()
    after(monkeypatch, env, "read_refusal", work / "sub", link_folder(work / "sub", outside))
    out = await call(env, "grep", pattern="x", path="sub")
    assert out == f"grep refused: {work.resolve() / 'sub'} {SWAPPED}"


async def test_glob_does_not_walk_into_a_folder_swapped_after_it_was_listed(
        env: ToolEnv, work: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (work / "sub").mkdir()
    (work / "top.txt").write_text("x\n")
    after(monkeypatch, env, "is_private", work / "sub", link_folder(work / "sub", outside))
    assert await call(env, "glob", pattern="**/*.txt") == "top.txt"


@linux_only
async def test_glob_does_not_walk_into_a_folder_under_one_swapped_after_it_was_listed(
        env: ToolEnv, work: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (work / "sub" / "inner").mkdir(parents=True)
    (work / "top.txt").write_text("x\n")
    after(monkeypatch, env, "is_private", work / "sub" / "inner", link_folder(work / "sub", outside))
    assert await call(env, "glob", pattern="**/*.txt") == "top.txt"
