"""A path with a space can be `@`-mentioned: in quotes (`@"odd dir/sp ace.txt"`, `@'…'`) or with a
backslash before each space (`@odd\\ dir/sp\\ ace.txt`), as pasted image paths already were. A
plain mention stopped at the space (`@odd: no such file`), and so did every other form."""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_agent.agent.run.attachments import find
from compact_agent.agent.run.mention_syntax import mentions, partial, written
from compact_agent.agent.safety.permissions import Permissions
from compact_agent.config import Settings
from tests.fakes.images import png


def lines(typed: str, cwd: Path, sees: bool = False) -> list[tuple[str, bool, str]]:
    found = find(typed, cwd, Permissions(cwd, "yes"), sees_images=sees, max_bytes=1 << 20, settings=Settings())
    return [(a.name, a.attach, a.line) for a in found]


@pytest.fixture
def cwd(tmp_path: Path) -> Path:
    (tmp_path / "odd dir").mkdir()
    (tmp_path / "odd dir" / "sp ace.txt").write_text("one\ntwo\n")
    return tmp_path


@pytest.mark.parametrize("typed", ['see @"odd dir/sp ace.txt"', "see @'odd dir/sp ace.txt', please",
                                   "see @odd\\ dir/sp\\ ace.txt.", 'is @"odd dir/sp ace.txt" right?'])
def test_a_quoted_or_escaped_path_is_attached(cwd: Path, typed: str) -> None:
    assert lines(typed, cwd) == [("odd dir/sp ace.txt", True, "attached odd dir/sp ace.txt (2 lines)")]


def test_a_missing_or_folder_path_is_named_as_it_must_be_written(cwd: Path) -> None:
    assert lines('see @"odd dir/nope.txt"', cwd) == [
        ("odd dir/nope.txt", False, '@"odd dir/nope.txt": no such file, not attached')]
    assert lines("see @odd\\ dir", cwd) == [("odd dir", False, '@"odd dir" is a folder: not attached (mention files)')]
    # A quote left open runs to the end of the line: said, rather than nothing at all.
    assert lines('see @"odd dir/sp ace.txt and fix it', cwd)[0][2] == \
        '@"odd dir/sp ace.txt and fix it": no such file, not attached'


def test_plain_mentions_read_as_before(cwd: Path) -> None:
    (cwd / "a.py").write_text("x\n")
    assert [m.name for m in mentions("@a.py, @src/. and @.. then mail@example.com")] == ["a.py", "src/.", ".."]
    assert lines("see @a.py.", cwd) == [("a.py", True, "attached a.py (1 line)")]


def test_an_image_in_quotes_is_one_attachment(cwd: Path) -> None:
    (cwd / "odd dir" / "shot 1.png").write_bytes(png(4, 3))
    found = lines('look at @"odd dir/shot 1.png"', cwd, sees=True)
    assert [(name, attach) for name, attach, _ in found] == [("odd dir/shot 1.png", True)], found


def test_paths_are_written_back_as_they_read() -> None:
    for path in ("odd dir/sp ace.txt", "it's here.txt", "a\"b c.txt", "both ' and \" .txt", "foo.", "plain/x.py"):
        for form in ({}, {"quote": "'"}, {"escaped": True}):
            text = written(path, **form)  # type: ignore[arg-type]
            assert [m.name for m in mentions(f"see {text} now")] == [path], (path, form, text)
    assert written("odd dir/", folder=True, quote='"') == '@"odd dir/'  # open: Tab goes on inside it
    assert written("odd dir/", folder=True) == "@odd\\ dir/"
    p = partial('see @"odd dir/')
    assert p is not None and (p.path, p.quote, p.typed) == ("odd dir/", '"', 10)
    p = partial("see @odd\\ dir/s")
    assert p is not None and (p.path, p.escaped, p.typed) == ("odd dir/s", True, 11)
