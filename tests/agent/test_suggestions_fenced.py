"""The names a "did you mean" offers for a file not found come from inside the fence only."""

from __future__ import annotations

from pathlib import Path

from compact_agent.agent.safety.permissions import Permissions
from compact_agent.agent.tools.base import ToolEnv

from .test_tools import call


async def test_a_missing_granted_dir_offers_no_name_from_the_folder_above_it(env: ToolEnv, work: Path,
                                                                          tmp_path: Path) -> None:
    (tmp_path / "secret-name.txt").write_text("x\n")
    granted = tmp_path / "secret-nam.txt"  # granted with extra_dirs, not there (yet)
    env.permissions = Permissions(work, "yes", extra_dirs=[granted])
    out = await call(env, "read_file", path=str(granted))
    assert out == f"File not found: {granted.resolve()}"


async def test_a_name_close_to_one_inside_is_still_offered(env: ToolEnv, work: Path) -> None:
    (work / "sub").mkdir()
    (work / "sub" / "notes.txt").write_text("x\n")
    assert await call(env, "read_file", path="sub/note.txt") == "File not found: sub/note.txt. Did you mean: sub/notes.txt?"
