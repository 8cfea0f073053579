"""`@.`, `@..` and `@dir/.` in what the user typed name folders, said as any folder is ("@src is a
folder: not attached"); the trailing dot was taken for the sentence's and `@.` became "@ is a
folder". A sentence's own full stop after a file still goes: "see @foo.py." attaches foo.py."""

from __future__ import annotations

from pathlib import Path

from compact_agent.agent.run.attachments import find
from compact_agent.agent.safety.permissions import Permissions
from compact_agent.config import Settings


def lines(typed: str, cwd: Path) -> list[tuple[str, bool, str]]:
    found = find(typed, cwd, Permissions(cwd, "yes"), sees_images=False, max_bytes=1 << 20, settings=Settings())
    return [(a.name, a.attach, a.line) for a in found]


def test_dot_paths_name_folders_and_a_full_stop_is_still_punctuation(tmp_path: Path) -> None:
    cwd = tmp_path / "project"
    (cwd / "src").mkdir(parents=True)
    (cwd / "foo.py").write_text("x = 1\n")
    assert lines("look at @.", cwd) == [(".", False, "@. is a folder: not attached (mention files)")]
    assert lines("what is in @..?", cwd) == [("..", False, "@.. is a folder: not attached (mention files)")]
    assert lines("and @src/., please", cwd) == [("src/.", False, "@src/. is a folder: not attached (mention files)")]
    assert lines("then @src", cwd) == [("src", False, "@src is a folder: not attached (mention files)")]
    assert lines("up one: @...", cwd) == [("..", False, "@.. is a folder: not attached (mention files)")]
    assert lines("see @foo.py.", cwd) == [("foo.py", True, "attached foo.py (1 line)")]
    assert lines("see @foo.py, then @./foo.py.", cwd) == [("foo.py", True, "attached foo.py (1 line)")]
