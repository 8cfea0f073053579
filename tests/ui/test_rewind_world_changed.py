"""`/rewind N` after the user changed what stands where the agent wrote: a file made a folder, a
file made a link, a file deleted. The question names each, and the rewind does what it says.

Before: a folder where a written file was failed the whole rewind ('Is a directory: a.txt'), the
other files never put back, each `/rewind N` again failing the same way, and the question said
nothing of it; a link put in place of a file was written through (its target got the old lines),
the question calling the target 'changed by hand since the agent wrote it', which the agent never
did; a file deleted since came back without a word."""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console

from compact_agent.agent.tools.checkpoints import Checkpoints
from tests.fakes.openai_server import ChatRequest, Reply, message_text

from .repl_driver import drive
from .test_command_edges import clean


def two_files(req: ChatRequest) -> Reply:
    """`write WORD` reads a.txt and b.txt, then writes WORD into both; anything else gets "ok"."""
    users = [message_text(m) for m in req.messages if m.get("role") == "user"]
    asked = max(i for i, m in enumerate(req.messages) if m.get("role") == "user")
    results = sum(m.get("role") == "tool" for m in req.messages[asked:])
    if not users[-1].startswith("write "):
        return Reply.text("ok")
    word = users[-1].split()[1]
    if results == 0:
        return Reply.tools([("read_file", {"path": "a.txt"}), ("read_file", {"path": "b.txt"})])
    if results == 2:
        return Reply.tools([("write_file", {"path": "a.txt", "content": f"a {word}\n"}),
                        ("write_file", {"path": "b.txt", "content": f"b {word}\n"})])
    return Reply.text("written")


async def rewound(tmp_path: Path, change: Callable[[Path], None], at: int = 2) -> tuple[str, Path]:
    """a.txt and b.txt at "zero", both written "one" by a turn, `change` made to the project at the
    REPL's `at`-th prompt (2: once the turn has written both files; 3: while /rewind's question is
    up), `/rewind 0` answered y: what it showed (on one line) and the project."""
    project = tmp_path / "project"
    project.mkdir()
    for name in ("a.txt", "b.txt"):
        (project / name).write_text(f"{name[0]} zero\n")
    prompts = 0

    def at_prompt() -> None:
        nonlocal prompts
        prompts += 1
        if prompts == at:
            assert (project / "a.txt").read_text() == "a one\n"
            change(project)

    wide = Console(record=True, width=600, file=io.StringIO(), force_terminal=False)  # each line whole
    run = await drive(tmp_path, two_files, ["write one\r", "/rewind 0\r", "y", "\x15\x04"],
                      keys_answer=True, at_prompt=at_prompt, permission_mode="yes", console=wide)
    clean(run.out)
    return " ".join(run.out.split()), project


async def test_a_folder_where_a_file_was_is_named_left_and_the_other_files_put_back(tmp_path: Path) -> None:
    def to_folder(project: Path) -> None:
        (project / "a.txt").unlink()
        (project / "a.txt").mkdir()
        (project / "a.txt" / "inside.txt").write_text("user data\n")

    out, project = await rewound(tmp_path, to_folder)
    assert ("a folder stands where a.txt was: left as it is (answer n and move it away first to have the file as "
            "before) [y/N] y") in out, out
    assert (project / "b.txt").read_text() == "b zero\n"  # put back all the same
    assert (project / "a.txt" / "inside.txt").read_text() == "user data\n"
    assert "rewound; restored 1 file" in out, out
    assert "not put back as it was: a.txt (a folder stands there now, left as it is)" in out, out
    assert "Is a directory" not in out, out


async def test_a_link_where_a_file_was_is_replaced_by_the_file_not_written_through(tmp_path: Path) -> None:
    def to_link(project: Path) -> None:
        (project / "mine.txt").write_text("my own file\n")
        (project / "a.txt").unlink()
        os.symlink("mine.txt", project / "a.txt")

    out, project = await rewound(tmp_path, to_link)
    assert "changed by hand" not in out, out  # the agent never wrote mine.txt
    assert ("a link stands where a.txt was: it is replaced by the file put back (what it leads to does not change) "
            "[y/N] y") in out, out
    assert (project / "mine.txt").read_text() == "my own file\n"
    assert not (project / "a.txt").is_symlink() and (project / "a.txt").read_text() == "a zero\n"
    assert (project / "b.txt").read_text() == "b zero\n"
    assert "rewound; restored 2 files" in out, out


async def test_a_file_deleted_since_is_named_in_the_question(tmp_path: Path) -> None:
    out, project = await rewound(tmp_path, lambda project: (project / "a.txt").unlink())
    assert "deleted since the agent wrote it: a.txt (it is put back) [y/N] y" in out, out
    assert (project / "a.txt").read_text() == "a zero\n"
    assert "rewound; restored 2 files" in out, out


def test_a_rewind_changes_nothing_it_did_not_find_at_its_files(tmp_path: Path) -> None:
    """What the question said is looked at again as the rewind writes: a folder made after the
    answer is left (and named), not a failure that stops the other files."""
    work = tmp_path / "work"
    work.mkdir()
    for name in ("a.txt", "b.txt", "new.txt"):
        (work / name).write_text(f"{name} before\n")
    cps = Checkpoints(tmp_path / "store")
    cps.begin(0, 0, "change them")
    (work / "new.txt").unlink()
    for name in ("a.txt", "b.txt", "new.txt"):
        cps.before_write(work / name, b"agent\n")
        (work / name).write_bytes(b"agent\n")
        cps.wrote(work / name, b"agent\n")
    assert cps.standing(0) == {"folder": [], "link": [], "deleted": []}
    for name in ("a.txt", "new.txt"):  # new.txt: made by the agent, a rewind removes it
        (work / name).unlink()
        (work / name).mkdir()
    assert cps.standing(0)["folder"] == [work.resolve() / "a.txt", work.resolve() / "new.txt"]
    _, restored = cps.rewind(0)
    assert restored == [work.resolve() / "b.txt"] and (work / "b.txt").read_text() == "b.txt before\n"
    assert cps.passed == [work.resolve() / "a.txt", work.resolve() / "new.txt"]
    assert (work / "a.txt").is_dir() and (work / "new.txt").is_dir()


def test_a_link_put_where_a_file_was_is_no_file_changed_and_never_written_through(tmp_path: Path) -> None:
    """A link to a file of the project is replaced by the file put back; one out of the project is
    left (`fenced` names it: the fence judges where it leads). Neither target changes, nor is
    taken for a file the agent wrote and the user changed since (its version kept, said as such)."""
    work, outside = tmp_path / "work", tmp_path / "outside"
    work.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("outside\n")
    (work / "mine.txt").write_text("my own file\n")
    cps = Checkpoints(tmp_path / "store", may_restore=lambda p: p.resolve().is_relative_to(work.resolve()))
    cps.begin(0, 0, "change them")
    for name in ("a.txt", "b.txt"):
        (work / name).write_text(f"{name} before\n")
        cps.before_write(work / name, b"agent\n")
        (work / name).write_bytes(b"agent\n")
        cps.wrote(work / name, b"agent\n")
        (work / name).unlink()
    os.symlink(work / "mine.txt", work / "a.txt")
    os.symlink(outside / "secret.txt", work / "b.txt")
    assert cps.changed(0) == []
    assert cps.standing(0) == {"folder": [], "link": [work.resolve() / "a.txt"], "deleted": []}
    assert cps.fenced(0) == [work.resolve() / "b.txt"]
    _, restored = cps.rewind(0)
    assert restored == [work.resolve() / "a.txt"]
    assert not (work / "a.txt").is_symlink() and (work / "a.txt").read_text() == "a.txt before\n"
    assert (work / "mine.txt").read_text() == "my own file\n" and (outside / "secret.txt").read_text() == "outside\n"
    assert (work / "b.txt").is_symlink()


async def test_a_change_made_while_the_question_is_up_is_looked_at_again_after_the_answer(tmp_path: Path) -> None:
    """The question is asked of the files as they were; what the user does while it is up (a file
    edited, another made a folder) is found again once answered: the edit's version kept and
    said, the folder left and said, the rest put back."""
    def meanwhile(project: Path) -> None:
        with (project / "b.txt").open("a") as f:
            f.write("mine, typed while asked\n")
        (project / "a.txt").unlink()
        (project / "a.txt").mkdir()

    out, project = await rewound(tmp_path, meanwhile, at=3)
    assert "the plan of those turns too [y/N] y" in out, out  # nothing was changed when it was asked
    assert (project / "b.txt").read_text() == "b zero\n" and (project / "a.txt").is_dir()
    [kept] = (tmp_path / "home").rglob("rewind-kept/*/b.txt")
    assert kept.read_text() == "b one\nmine, typed while asked\n"
    assert "1 file changed since the agent wrote it (by hand or by a command): b.txt;" in out, out
    assert "not put back as it was: a.txt (a folder stands there now, left as it is)" in out, out


def test_a_file_changed_after_the_rewind_looked_at_it_is_left_not_replaced(tmp_path: Path) -> None:
    """A rewind replaces a file as `changed` read it (whose version the caller keeps when it is not
    the agent's): one changed after that, as the rewind ran (the session being saved, say), is
    left and named (`raced`), not replaced with no copy anywhere; the others go back."""
    work = tmp_path / "work"
    work.mkdir()
    for name in ("a.txt", "b.txt"):
        (work / name).write_text(f"{name} before\n")
    cps = Checkpoints(tmp_path / "store")
    cps.begin(0, 0, "change them")
    for name in ("a.txt", "b.txt"):
        cps.before_write(work / name, b"agent\n")
        (work / name).write_bytes(b"agent\n")
        cps.wrote(work / name, b"agent\n")
    (work / "b.txt").write_text("agent\nmine\n")
    assert cps.changed(0) == [work.resolve() / "b.txt"]  # the caller keeps this version
    (work / "a.txt").write_text("agent\nmine, after the look\n")
    (work / "b.txt").write_text("agent\nmine\nand more, after the look\n")
    _, restored = cps.rewind(0)
    assert restored == [] and cps.raced == [work.resolve() / "a.txt", work.resolve() / "b.txt"]
    assert (work / "a.txt").read_text() == "agent\nmine, after the look\n"
    assert (work / "b.txt").read_text() == "agent\nmine\nand more, after the look\n"
    cps = Checkpoints(tmp_path / "store2")  # as it was looked at: put back
    cps.begin(0, 0, "change it")
    cps.before_write(work / "a.txt", b"agent\n")
    (work / "a.txt").write_bytes(b"agent\n")
    cps.wrote(work / "a.txt", b"agent\n")
    assert cps.changed(0) == []
    assert cps.rewind(0)[1] == [work.resolve() / "a.txt"] and cps.raced == []
    assert (work / "a.txt").read_text() == "agent\nmine, after the look\n"


async def test_a_file_changed_as_the_session_is_saved_for_the_rewind_is_left_and_said(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Between the look at the files (the versions changed by hand copied) and their writes, the
    session is archived and rewritten: a file the agent left, changed by then, was replaced."""
    from tests.e2e.test_rewind_after_compaction import editor, session, written_twice
    from tests.fakes.openai_server import FakeOpenAIServer

    from .test_command_edges import show

    with FakeOpenAIServer(editor) as server:
        s = session(tmp_path, server)
        try:
            hello = await written_twice(s)
            archive = s.store.archive

            def archive_and_edit() -> Path:
                hello.write_text("two\nmine, as the rewind ran\n")
                return archive()

            monkeypatch.setattr(s.store, "archive", archive_and_edit)
            out = await show(s, "/rewind 1")
            clean(out)
            assert hello.read_text() == "two\nmine, as the rewind ran\n"
            assert out == ("rewound; no files restored not put back as it was: hello.txt (changed as the rewind ran, "
                           "by hand or by a command: left as it is)"), out
        finally:
            s.close()


async def test_a_link_out_of_the_project_where_a_file_was_is_named_in_the_question(tmp_path: Path) -> None:
    """The fence leaves it (what it leads to is not the tools' to write): the question says so, as
    the line after does; it said nothing of it."""
    outside = tmp_path / "outside.txt"
    outside.write_text("outside, must not change\n")

    def link_out(project: Path) -> None:
        (project / "a.txt").unlink()
        os.symlink(outside, project / "a.txt")

    out, project = await rewound(tmp_path, link_out)
    assert ("left as it is, outside the working directory or where the file tools may not write: a.txt "
            "[y/N] y") in out, out
    assert outside.read_text() == "outside, must not change\n" and (project / "a.txt").is_symlink()
    assert (project / "b.txt").read_text() == "b zero\n"
    assert "1 file left as it is: outside the working directory or where the file tools may not write: a.txt" in out
