"""A Windows path in an `@` mention (`@src\\main.py`) keeps its backslashes, and is attached as
`src/main.py` when only that exists. The backslash was read as an escape and dropped, so the
mention named `srcmain.py` ('@srcmain.py: no such file'). A backslash still escapes what a plain
mention stops at (`@my\\ file.py`, `@a\\\\b`) and a last dot a sentence would take (`@foo\\.`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_agent.agent.run.attachments import find
from compact_agent.agent.run.mention_syntax import mentions, partial, written
from compact_agent.agent.safety.permissions import Permissions
from compact_agent.config import Settings
from tests.fakes.openai_server import Reply
from tests.ui.repl_driver import drive


def lines(typed: str, cwd: Path) -> list[tuple[str, bool, str]]:
    found = find(
        typed, cwd, Permissions(cwd, "yes"), sees_images=False, max_bytes=1 << 20, settings=Settings()
    )
    return [(a.name, a.attach, a.line) for a in found]


@pytest.mark.parametrize(("typed", "name"), [
    ("see @src\\main.py please", "src\\main.py"),
    ("see @src\\main.py.", "src\\main.py"),
    ("@src\\.hidden\\x.py", "src\\.hidden\\x.py"),
    ("@my\\ file.py", "my file.py"),
    ("@odd\\ dir\\sp\\ ace.txt", "odd dir\\sp ace.txt"),
    ("@a\\\\b", "a\\b"),
    ("@foo\\.", "foo."),
])  # fmt: skip
def test_a_backslash_escapes_only_what_a_mention_would_stop_at(typed: str, name: str) -> None:
    assert [m.name for m in mentions(typed)] == [name]


def test_a_windows_path_attaches_the_file_with_slashes(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("print(1)\n")
    assert lines("fix @src\\main.py", tmp_path) == [("src/main.py", True, "attached src/main.py (1 line)")]
    assert lines("fix @src\\nope.py", tmp_path) == [
        ("src\\nope.py", False, "@src\\nope.py: no such file, not attached")
    ]


def test_a_file_named_with_a_backslash_is_the_one_attached(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("print(1)\n")
    (tmp_path / "src\\main.py").write_text("one\ntwo\n")  # a name with a backslash in it (not on Windows)
    assert lines("fix @src\\main.py", tmp_path) == [("src\\main.py", True, "attached src\\main.py (2 lines)")]
    text = written("src\\main.py")
    assert [m.name for m in mentions(f"see {text} now")] == ["src\\main.py"]


def test_tab_completes_a_windows_path_as_typed() -> None:
    p = partial("see @src\\ma")
    assert p is not None and (p.path, p.escaped) == ("src\\ma", False)


async def test_the_repl_attaches_it_and_the_model_gets_the_file(tmp_path: Path) -> None:
    (tmp_path / "project" / "src").mkdir(parents=True)
    (tmp_path / "project" / "src" / "main.py").write_text("print('MAIN')\n")
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["look at @src\\main.py\r"])
    assert "⎿ attached src/main.py (1 line)" in run.out and "no such file" not in run.out, run.out
    assert "print('MAIN')" in str(run.server.requests[-1].messages)
