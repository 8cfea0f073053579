"""A link that loops (a repository can hold one: git keeps links) reaching a file tool comes back
to the model in our words, naming the path as it gave it, not Python's 'Symlink loop from …'."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from compact_agent.agent.tools.base import ToolEnv

from .test_tools import call

LOOP = "a link that loops, or a path the system cannot follow"


@pytest.mark.parametrize(("tool", "args", "named"), [
    ("read_file", {"path": "a.md"}, "a.md"),
    ("read_file", {"path": "a.md/inner.txt"}, "a.md/inner.txt"),
    ("write_file", {"path": "a.md", "content": "x"}, "a.md"),
    ("edit_file", {"path": "a.md", "old_string": "x", "new_string": "y"}, "a.md"),
    ("grep", {"pattern": "x", "path": "a.md"}, "a.md"),
    ("glob", {"pattern": "*", "path": "a.md"}, "a.md"),
    ("glob", {"pattern": "a.md/*"}, "a.md"),
])
async def test_a_link_that_loops_is_said_in_our_words(env: ToolEnv, work: Path, tool: str,
                                                       args: dict[str, Any], named: str) -> None:
    os.symlink("b.md", work / "a.md")
    os.symlink("a.md", work / "b.md")
    out = await call(env, tool, **args)
    assert out == f"{tool} failed: {named}: {LOOP}"


async def test_a_search_of_the_folder_skips_the_loop(env: ToolEnv, work: Path) -> None:
    os.symlink("b.md", work / "a.md")
    os.symlink("a.md", work / "b.md")
    (work / "notes.txt").write_text("x marks it\n")
    assert await call(env, "grep", pattern="x") == "notes.txt:1:x marks it"
    assert await call(env, "glob", pattern="*") == "notes.txt"
