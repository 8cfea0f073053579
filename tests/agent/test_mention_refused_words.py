"""A file named with `@` that the fence keeps from the model is said in a sentence: the line took
the fence's refusal without its `permission denied: <path>` head and kept the rest, so it read
"@/etc/passwd: not attached (is outside the working directory …)", a verb without its subject."""

from __future__ import annotations

from pathlib import Path

from compact_agent.agent.run.attachments import find
from compact_agent.agent.safety.permissions import Permissions
from compact_agent.config import Settings


def lines(typed: str, cwd: Path, permissions: Permissions) -> list[str]:
    found = find(typed, cwd, permissions, sees_images=False, max_bytes=1 << 20, settings=Settings())
    return [a.line for a in found]


def test_a_file_the_fence_keeps_out_is_said_with_its_subject(tmp_path: Path) -> None:
    cwd = tmp_path / "project"
    cwd.mkdir()
    (cwd / ".env").write_text("KEY=1\n")
    (tmp_path / "notes.txt").write_text("outside\n")
    fence = Permissions(cwd, "yes", deny_paths=[".env"])
    assert lines("see @../notes.txt", cwd, fence) == [
        f"@../notes.txt: not attached (it is outside the working directory {cwd.resolve()})"]
    assert lines("see @.env", cwd, fence) == ["@.env: not attached (it matches deny rule '.env')"]
