"""A link put in a checked path's way between the fence's check and the open cannot lead a file
tool outside the working directory: the file made a link to a secret, or a folder on the way made
a link out of the project, just after the check. The swap is made by a hook at that very moment
(safety/checked_open.py's `before_open`), so no race is needed to show it."""

from __future__ import annotations

import os
import shutil
import stat
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from compact_agent.agent.safety import checked_open
from compact_agent.agent.tools.base import ToolEnv
from compact_agent.agent.tools.checkpoints import Checkpoints

from .test_tools import call

SECRET = "the secret outside the project"
SWAPPED = "changed while it was being opened (a link was put in its way after the check)"
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a folder swap is seen through /proc")


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    d = tmp_path / "outside"
    d.mkdir()
    (d / "notes.txt").write_text(f"{SECRET}\n")
    return d


def swap_once(monkeypatch: pytest.MonkeyPatch, when: Path, swap: Callable[[], None]) -> list[Path]:
    """Make `swap` happen once, just before `when` is opened; returns the paths opened."""
    opened: list[Path] = []

    def hook(path: Path) -> None:
        opened.append(path)
        if path == when.resolve() and len([p for p in opened if p == path]) == 1:
            swap()

    monkeypatch.setattr(checked_open, "before_open", hook)
    return opened


def link_file(at: Path, to: Path) -> Callable[[], None]:
    def swap() -> None:
        at.unlink()
        at.symlink_to(to)
    return swap


def link_folder(at: Path, to: Path) -> Callable[[], None]:
    def swap() -> None:
        shutil.rmtree(at)
        at.symlink_to(to, target_is_directory=True)
    return swap


async def test_read_file_refuses_a_file_swapped_for_a_link(env: ToolEnv, work: Path, outside: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    (work / "notes.txt").write_text("inside\n")
    swap_once(monkeypatch, work / "notes.txt", link_file(work / "notes.txt", outside / "notes.txt"))
    out = await call(env, "read_file", path="notes.txt")
    assert out == f"read_file refused: {work.resolve() / 'notes.txt'} {SWAPPED}"


@linux_only
async def test_read_file_refuses_a_folder_swapped_for_a_link(env: ToolEnv, work: Path, outside: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    (work / "sub").mkdir()
    (work / "sub" / "notes.txt").write_text("inside\n")
    swap_once(monkeypatch, work / "sub" / "notes.txt", link_folder(work / "sub", outside))
    out = await call(env, "read_file", path="sub/notes.txt")
    assert out == f"read_file refused: {work.resolve() / 'sub' / 'notes.txt'} {SWAPPED}"


async def test_an_image_swapped_for_a_link_is_not_sent(env: ToolEnv, work: Path, outside: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.fakes.images import png

    env.images = True
    (work / "pic.png").write_bytes(png(2, 2))
    (outside / "secret.png").write_bytes(png(3, 3) + SECRET.encode())
    swap_once(monkeypatch, work / "pic.png", link_file(work / "pic.png", outside / "secret.png"))
    out = await call(env, "read_file", path="pic.png")
    assert out == f"read_file refused: {work.resolve() / 'pic.png'} {SWAPPED}"


async def test_edit_file_refuses_to_read_a_file_swapped_for_a_link(env: ToolEnv, work: Path, outside: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    (work / "notes.txt").write_text("the secret inside\n")
    await call(env, "read_file", path="notes.txt")
    os.utime(outside / "notes.txt", ns=(0, (work / "notes.txt").stat().st_mtime_ns))  # passes the read guard
    swap_once(monkeypatch, work / "notes.txt", link_file(work / "notes.txt", outside / "notes.txt"))
    out = await call(env, "edit_file", path="notes.txt", old_string="secret", new_string="public")
    assert out == f"edit_file refused: {work.resolve() / 'notes.txt'} {SWAPPED}"
    assert (outside / "notes.txt").read_text() == f"{SECRET}\n"


@linux_only
async def test_write_file_refuses_a_folder_swapped_for_a_link(env: ToolEnv, work: Path, outside: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    (work / "sub").mkdir()
    swap_once(monkeypatch, work / "sub", link_folder(work / "sub", outside))
    out = await call(env, "write_file", path="sub/new.txt", content="written\n")
    assert out == f"write_file refused: {work.resolve() / 'sub'} {SWAPPED}"
    assert sorted(p.name for p in outside.iterdir()) == ["notes.txt"]  # nothing written there, no temp file


async def test_write_file_writes_nothing_through_a_link_swapped_in_at_the_end(
        env: ToolEnv, work: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new file's name taken by a link after the check: nothing is written through it, and, as for
    any file made there since the model looked, nothing over it either (edits.py's `_commit`)."""
    (work / "sub").mkdir()
    (outside / "notes.txt").chmod(0o751)
    swap_once(monkeypatch, work / "sub", lambda: (work / "sub" / "new.txt").symlink_to(outside / "notes.txt"))
    out = await call(env, "write_file", path="sub/new.txt", content="written\n")
    assert out.startswith("refused: sub/new.txt was made by another while this write waited"), out
    assert (outside / "notes.txt").read_text() == f"{SECRET}\n"
    assert stat.S_IMODE((outside / "notes.txt").stat().st_mode) == 0o751
    assert (work / "sub" / "new.txt").is_symlink()  # left as the other left it
    assert sorted(p.name for p in (work / "sub").iterdir()) == ["new.txt"]  # no temp file left


async def test_grep_skips_a_file_swapped_for_a_link(env: ToolEnv, work: Path, outside: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    (work / "notes.txt").write_text("the secret inside\n")
    swap_once(monkeypatch, work / "notes.txt", link_file(work / "notes.txt", outside / "notes.txt"))
    assert await call(env, "grep", pattern="secret") == "No matches for 'secret' in ."


async def test_the_version_saved_for_a_rewind_is_not_read_through_a_link_swapped_in(
        env: ToolEnv, work: Path, outside: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """write_file saves the file's version before it writes (for /rewind): read through a link put
    in its way, the secret would be saved, and a rewind would put it in the project."""
    from compact_agent.agent.tools.checkpoints import Checkpoints

    env.checkpoints = Checkpoints(tmp_path / "store")
    env.checkpoints.begin(0, 0, "change it")
    (work / "notes.txt").write_text("inside\n")
    await call(env, "read_file", path="notes.txt")
    target, opened = work.resolve() / "notes.txt", []

    def hook(path: Path) -> None:  # the write reads the file twice: the swap comes before the second
        opened.append(path)
        if path == target and opened.count(target) == 2:
            link_file(work / "notes.txt", outside / "notes.txt")()

    monkeypatch.setattr(checked_open, "before_open", hook)
    out = await call(env, "write_file", path="notes.txt", content="rewritten\n")
    assert out == f"write_file refused: {target} {SWAPPED}"
    saved = [f for f in (tmp_path / "store").rglob("*") if f.is_file() and SECRET.encode() in f.read_bytes()]
    assert not saved


@linux_only
async def test_write_file_makes_no_folder_outside_through_a_folder_swapped_while_the_user_is_asked(
        work: Path, outside: Path) -> None:
    """The folders a new file needs are made after the check: while the user is asked, a folder on
    the way becomes a link out of the project, and none of them is made where it leads."""
    from compact_agent.agent.safety.permissions import Answer, Permissions

    from .test_tools import make_env

    (work / "sub").mkdir()

    def ask(tool: str, detail: str) -> Answer:
        link_folder(work / "sub", outside)()
        return "once"

    env = make_env(work)
    env.permissions = Permissions(work, "ask", ask=ask)
    out = await call(env, "write_file", path="sub/deep/er/new.txt", content="written\n")
    assert sorted(p.name for p in outside.iterdir()) == ["notes.txt"]  # no folder made there
    assert out == f"write_file refused: {work.resolve() / 'sub'} {SWAPPED}"


@linux_only
def test_a_folder_to_make_found_as_a_link_is_not_made_through(work: Path, outside: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder a write has to make, made a link out by another just before it is made: refused
    there, and the folders below it are not made where the link leads."""
    (work / "sub").mkdir()
    swap_once(monkeypatch, work / "sub", lambda: (work / "sub" / "deep").symlink_to(outside, target_is_directory=True))
    with pytest.raises(checked_open.Swapped) as e:
        checked_open.make_folders(work.resolve() / "sub" / "deep" / "er")
    assert e.value.filename == str(work.resolve() / "sub" / "deep")
    assert sorted(p.name for p in outside.iterdir()) == ["notes.txt"]


def test_the_folders_a_write_needs_are_made(work: Path) -> None:
    checked_open.make_folders(work.resolve() / "a" / "b" / "c")
    assert (work / "a" / "b" / "c").is_dir()
    checked_open.make_folders(work.resolve() / "a" / "b" / "c")  # already there: nothing to do
    (work / "f").write_text("a file\n")
    with pytest.raises(NotADirectoryError):
        checked_open.make_folders(work.resolve() / "f" / "g")


@linux_only
def test_a_rewind_makes_and_writes_nothing_through_a_folder_swapped_after_its_check(
        work: Path, outside: Path, tmp_path: Path) -> None:
    """A rewind puts back a file whose folders are gone: a folder on its way made a link out just
    after the fence passed the file leads neither the folders it makes nor the file outside."""
    swaps = [link_folder(work / "sub", outside)]

    def may_restore(path: Path) -> bool:
        inside = path.is_relative_to(work.resolve())
        if swaps:
            swaps.pop()()
        return inside

    (work / "sub" / "deep").mkdir(parents=True)
    (work / "sub" / "deep" / "a.txt").write_text("as it was\n")
    cps = Checkpoints(tmp_path / "store", may_restore=may_restore)
    cps.begin(0, 0, "change it")
    cps.before_write(work / "sub" / "deep" / "a.txt")
    shutil.rmtree(work / "sub" / "deep")
    with pytest.raises(checked_open.Swapped) as e:
        cps.rewind(0)
    assert sorted(p.name for p in outside.iterdir()) == ["notes.txt"]
    assert e.value.strerror == SWAPPED


def _rewind_swapping(work: Path, store: Path, swap: Callable[[], None], nth: int) -> Checkpoints:
    """Checkpoints whose fence swaps `swap` in just after it has answered `nth` times; one was
    begun before sub/new.txt was made, so a rewind to it removes the file."""
    answers: list[Path] = []

    def may_restore(path: Path) -> bool:
        answers.append(path)
        inside = path.is_relative_to(work.resolve())
        if len(answers) == nth:
            swap()
        return inside

    (work / "sub").mkdir()
    cps = Checkpoints(store, may_restore=may_restore)
    cps.begin(0, 0, "make it")
    cps.before_write(work / "sub" / "new.txt")
    (work / "sub" / "new.txt").write_text("made since\n")
    return cps


def test_a_rewind_removes_nothing_through_a_folder_swapped_after_its_check(
        work: Path, outside: Path, tmp_path: Path) -> None:
    """A file made since the checkpoint is removed by a rewind: its folder made a link out just
    after the fence passed it leads the removal to no file of the same name where it leads."""
    (outside / "new.txt").write_text("kept\n")
    cps = _rewind_swapping(work, tmp_path / "store", link_folder(work / "sub", outside), nth=1)
    _, restored = cps.rewind(0)
    assert (outside / "new.txt").read_text() == "kept\n"
    assert restored == []


def test_a_rewind_refuses_a_folder_swapped_after_the_name_to_remove_was_checked(
        work: Path, outside: Path, tmp_path: Path) -> None:
    (outside / "new.txt").write_text("kept\n")
    cps = _rewind_swapping(work, tmp_path / "store", link_folder(work / "sub", outside), nth=2)
    with pytest.raises(checked_open.Swapped):
        cps.rewind(0)
    assert (outside / "new.txt").read_text() == "kept\n"
