"""A path that names a home folder the system does not know (`~nobody-here/x`) comes back to the
model in one line of our words, from every file tool."""

from __future__ import annotations

from typing import Any

import pytest

from compact_agent.agent.tools.base import ToolEnv

from .test_tools import call


@pytest.mark.parametrize(("tool", "field"), [("read_file", "path"), ("write_file", "path"), ("edit_file", "path"),
                                             ("grep", "path"), ("glob", "path")])
async def test_an_unknown_home_folder_is_said_in_our_words(env: ToolEnv, tool: str, field: str) -> None:
    """Not Python's 'Could not determine home directory.', which names no path."""
    extra: dict[str, Any] = {"read_file": {}, "write_file": {"content": "x"},
                             "edit_file": {"old_string": "x", "new_string": "y"},
                             "grep": {"pattern": "x"}, "glob": {"pattern": "*"}}[tool]
    unknown = await call(env, tool, **{field: "~no-such-user-here/notes.txt"}, **extra)
    assert unknown == f"{tool} failed: ~no-such-user-here is a home folder that is not known"
