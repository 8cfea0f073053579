"""Every file tool's path is confined: one outside the working directory (by `..`, absolute, or
through a symlink) is refused before anything is read or written, and one that names a home folder
the system does not know (`~nobody-here/x`) comes back to the model in one line of our words.

The tools are every built-in tool (`TOOL_NAMES`) that takes a `path`, read from the toolset's
schemas, so a new file tool is covered here without being listed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compact_agent.agent.tools.base import ToolEnv
from compact_agent.agent.tools.names import TOOL_NAMES
from compact_agent.agent.tools.toolset import build_toolset

from .test_tools import call, make_env


def _path_tools() -> dict[str, dict[str, Any]]:
    """Each tool that takes a `path`, with a value for every other argument it requires (its name:
    the path is refused before any of them counts)."""
    tools = build_toolset(make_env(Path.cwd())).tools
    found: dict[str, dict[str, Any]] = {}
    for name in TOOL_NAMES:
        schema = tools[name].function_schema.json_schema
        props = schema.get("properties", {})
        if "path" in props:
            found[name] = {arg: arg for arg in schema.get("required", []) if arg != "path"}
            assert all(props[arg].get("type") == "string" for arg in found[name]), (
                f"{name} requires an argument that is not a string: give it a value in {__file__}")
    return found


PATH_TOOLS = _path_tools()


def test_the_file_tools_are_found() -> None:
    assert {"read_file", "write_file", "edit_file", "grep", "glob"} <= set(PATH_TOOLS)


@pytest.mark.parametrize("tool", sorted(PATH_TOOLS))
async def test_an_unknown_home_folder_is_said_in_our_words(env: ToolEnv, tool: str) -> None:
    """Not Python's 'Could not determine home directory.', which names no path."""
    unknown = await call(env, tool, path="~no-such-user-here/notes.txt", **PATH_TOOLS[tool])
    assert unknown == f"{tool} failed: ~no-such-user-here is a home folder that is not known"


@pytest.mark.parametrize("how", ["relative", "absolute", "symlink"])
@pytest.mark.parametrize("tool", sorted(PATH_TOOLS))
async def test_a_path_outside_the_working_directory_is_refused(env: ToolEnv, work: Path, tool: str,
                                                               how: str) -> None:
    outside = work.parent / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    (work / "link").symlink_to(outside, target_is_directory=True)
    path = {"relative": "../outside/secret.txt", "absolute": str(outside / "secret.txt"),
            "symlink": "link/secret.txt"}[how]
    refused = await call(env, tool, path=path, **PATH_TOOLS[tool])
    assert refused.startswith("permission denied:") and "outside the working directory" in refused, refused
    assert "--add-dir" in refused  # what the user gives on the command line (it said extra_dirs alone)
    assert "\n" not in refused and "secret\n" not in refused
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert (outside / "secret.txt").read_text() == "secret\n"
