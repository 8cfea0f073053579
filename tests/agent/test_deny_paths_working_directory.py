"""A deny_paths rule never fences off the working directory itself. `.*`, the usual rule to keep
dotfiles (`.env`, `.aws`) from the model, matched the working directory as ".", and a rule naming
the project's own folder matched it by name, so every grep, glob and listing of the project was
refused ('permission denied: …/proj matches deny rule '.*''), though docs/configuration.md says a
rule matching the working directory's own name fences off nothing. What the rule names inside it
stays hidden."""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_agent.agent.safety.permissions import Permissions
from compact_agent.agent.tools.base import ToolEnv
from compact_agent.agent.tools.file_state import ReadFileState
from compact_agent.config import Settings

from .test_tools import call


@pytest.mark.parametrize(("rule", "found", "hidden"), [(".*", True, 1), ("proj", True, 0), ("*", False, 2)])
async def test_the_working_directory_is_searched_and_listed_under_any_rule(tmp_path: Path, rule: str, found: bool,
                                                                           hidden: int) -> None:
    cwd = (tmp_path / "proj").resolve()
    cwd.mkdir()
    (cwd / "app.py").write_text("value = 1\n")
    (cwd / ".env").write_text("API_KEY=one\n")
    perms = Permissions(cwd, "yes", deny_paths=[rule])
    env = ToolEnv(cwd, Settings(), ReadFileState(), perms)
    assert perms.deny_rule(cwd) is None
    grep = await call(env, "grep", pattern="value", path=".")
    glob = await call(env, "glob", pattern="*.py")
    listing = await call(env, "read_file", path=".")
    for out in (grep, glob, listing):
        assert "permission denied" not in out, out
    assert ("app.py:1:value = 1" in grep) is found and ("app.py" in glob) is found, (grep, glob)
    assert (".env" in listing) is (hidden == 0), listing
    if hidden:  # what the rule names inside it stays hidden, and said
        said = "1 entry" if hidden == 1 else f"{hidden} entries"
        assert f"{said} hidden by deny_paths" in listing, listing
