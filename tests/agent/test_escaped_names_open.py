"""A file whose name grep, glob, read_file's listing and "Did you mean:" write with its escapes
(`path_line`: a tab as `\\t`, a line break as `\\n`, a zero-width joiner as `\\u200d`) is opened by
the name as written: the model copies what it was shown. A name that exists as written wins: a file
whose name holds a backslash and an `n` of its own is opened as itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_agent.agent.tools.base import ToolEnv
from compact_agent.agent.tools.edits import edit_file_impl, write_file_impl
from compact_agent.agent.tools.files import read_file_text
from compact_agent.agent.tools.search import glob_impl, grep_impl

NAMES = {"tab": "a\tb.py", "newline": "a\nb.py", "joiner": "a\u200db.py"}


@pytest.mark.parametrize("kind", NAMES)
def test_a_name_glob_shows_is_read_back(env: ToolEnv, work: Path, kind: str) -> None:
    (work / NAMES[kind]).write_text("inside\n")
    (shown,) = glob_impl(env, "*.py").splitlines()
    assert "\\" in shown  # written with its escape, on its one line
    assert read_file_text(env, shown) == "     1\tinside"


def test_a_name_in_a_folder_listing_is_edited_and_written_back(env: ToolEnv, work: Path) -> None:
    (work / "d\te").mkdir()
    (work / "d\te" / "x\u200dy.py").write_text("old\n")
    (entry,) = read_file_text(env, "d\\te").splitlines()[1:]
    assert entry == "x\\u200dy.py"
    path = f"d\\te/{entry}"
    read_file_text(env, path)
    assert edit_file_impl(env, path, "old", "new").startswith("Edited")
    assert write_file_impl(env, path, "newer\n").startswith("Overwrote")
    assert (work / "d\te" / "x\u200dy.py").read_text() == "newer\n"
    assert sorted(p.name for p in work.rglob("*")) == ["d\te", "x\u200dy.py"]  # no file of the escaped name


def test_grep_searches_the_folder_of_an_escaped_name(env: ToolEnv, work: Path) -> None:
    (work / "s\nt").mkdir()
    (work / "s\nt" / "f.py").write_text("needle\n")
    (work / "other.py").write_text("needle\n")
    assert grep_impl(env, "needle", path="s\\nt") == "s\\nt/f.py:1:needle"
    assert glob_impl(env, "*.py", path="s\\nt") == "s\\nt/f.py"


def test_a_name_that_exists_as_written_is_opened_as_itself(env: ToolEnv, work: Path) -> None:
    (work / "a\\nb").write_text("the backslash one\n")
    (work / "a\nb").write_text("the line break one\n")
    assert read_file_text(env, "a\\nb") == "     1\tthe backslash one"


def test_an_escape_path_line_does_not_write_stays_as_it_is(env: ToolEnv, work: Path) -> None:
    (work / "aAb").write_text("x\n")
    assert read_file_text(env, "a\\x41b").startswith("File not found: a\\x41b")
