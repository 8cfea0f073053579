"""`/rewind` in a project that was moved or renamed since its checkpoints were saved (mv ~/src/app
~/work/app2, its sessions folder moved along so that `-c` there finds the session): the checkpoints
name the project's files relative to its folder, so the rewind puts them back where the project is now.

Before, they named them by absolute path: the rewind put back nothing in the moved project, said
they were outside the working directory, and, where that old path was a folder the tools may write
in again (--add-dir), wrote over what stood there now, outside the project. A list an earlier
version wrote (absolute paths, no folder recorded) is still read: in the project's own folder it is
taken as the project's, and saved relative to it; found where the project no longer is, its files
are left alone, wherever those paths lead, and the rewind says which in one line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from compact_agent.session.files import project_slug
from tests.e2e.conftest import Cli
from tests.e2e.test_rewind_after_compaction import editor, fake
from tests.fakes.openai_server import FakeOpenAIServer
from tests.reliability.harness import Zygote


def opened(cwd: Path, server: FakeOpenAIServer, home: Path, sid: str | None = None,
           extra_dirs: tuple[Path, ...] = ()) -> AgentSession:
    return AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                                       permission_mode="yes", home=home, session_id=sid,
                                       settings=Settings(memory_enabled=False, extra_dirs=[str(d) for d in extra_dirs])))


async def written_twice(cwd: Path, server: FakeOpenAIServer, home: Path) -> tuple[str, Path]:
    """hello.txt "zero", then written "one" and "two" by two turns: the session's id and its list."""
    cwd.mkdir(parents=True)
    (cwd / "hello.txt").write_text("zero\n")
    s = opened(cwd, server, home)
    try:
        await s.run_turn("write one")
        await s.run_turn("write two")
        return s.session_id, s.store.dir / "checkpoints" / "checkpoints.json"
    finally:
        s.close()


def moved(old: Path, new: Path, home: Path) -> None:
    """The project moved (renamed too), and its sessions folder with it, where `-c` in `new` looks."""
    new.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(old, new)
    shutil.move(home / "projects" / project_slug(old), home / "projects" / project_slug(new))


def as_an_earlier_version_wrote_it(listed: Path) -> None:
    """The list as versions before this one saved it: every file by its absolute path, no folder."""
    data = json.loads(listed.read_text())
    for entry in data["checkpoints"]:
        root = Path(entry.pop("root", "/"))  # (already so: the list of an earlier version)
        for field in ("saved", "left", "writing"):
            entry[field] = {str(root / p): v for p, v in entry.get(field, {}).items()}
    listed.write_text(json.dumps(data))


def rewound(cwd: Path, server: FakeOpenAIServer, home: Path, sid: str,
            extra_dirs: tuple[Path, ...] = ()) -> tuple[list[Path], str]:
    """`/rewind 1` in session `sid` from `cwd`: the files it put back, and what it said it could not."""
    s = opened(cwd, server, home, sid, extra_dirs)
    try:
        back = s.rewind(1)
        return back.restored, back.lost
    finally:
        s.close()


async def test_a_moved_project_gets_its_files_back_where_it_is_now(tmp_path: Path) -> None:
    old, new, home = tmp_path / "src" / "app", tmp_path / "work" / "app2", tmp_path / "home"
    with FakeOpenAIServer(editor) as server:
        sid, listed = await written_twice(old, server, home)
        saved = json.loads(listed.read_text())["checkpoints"]
        moved(old, new, home)
        old.mkdir(parents=True)  # another project where this one was, in a folder the tools may write
        (old / "hello.txt").write_text("someone else's\n")
        restored, lost = rewound(new, server, home, sid, extra_dirs=(tmp_path / "src",))
    assert (new / "hello.txt").read_text() == "one\n"
    assert (old / "hello.txt").read_text() == "someone else's\n"  # was "one": written outside the project
    assert restored == [new.resolve() / "hello.txt"] and lost == "", (restored, lost)
    assert list(saved[1]["saved"]) == ["hello.txt"] and saved[1]["root"] == str(old.resolve()), saved


async def test_a_list_of_an_earlier_version_is_taken_as_the_projects_and_then_follows_a_move(tmp_path: Path) -> None:
    old, new, home = tmp_path / "src" / "app", tmp_path / "work" / "app2", tmp_path / "home"
    with FakeOpenAIServer(editor) as server:
        sid, listed = await written_twice(old, server, home)
        as_an_earlier_version_wrote_it(listed)
        s = opened(old, server, home, sid)  # where it was written: its files are this project's
        try:
            assert [list(cp.saved) for cp in s.checkpoints.list()] == [[str(old.resolve() / "hello.txt")]] * 2
            await s.run_turn("write three")  # saves the list again: every file named relative to the project
        finally:
            s.close()
        assert all("root" in e and list(e["saved"]) == ["hello.txt"] for e in json.loads(listed.read_text())["checkpoints"])
        moved(old, new, home)
        restored, lost = rewound(new, server, home, sid)
    assert (new / "hello.txt").read_text() == "one\n"
    assert restored == [new.resolve() / "hello.txt"] and lost == "", (restored, lost)


async def test_a_list_of_an_earlier_version_in_a_moved_project_writes_nowhere_and_says_so(tmp_path: Path) -> None:
    """Where that version's files belong now is not known (it recorded no folder): left, and said,
    even where the old path is in a folder the tools may write in."""
    old, new, home = tmp_path / "src" / "app", tmp_path / "work" / "app2", tmp_path / "home"
    with FakeOpenAIServer(editor) as server:
        sid, listed = await written_twice(old, server, home)
        as_an_earlier_version_wrote_it(listed)
        moved(old, new, home)
        old.mkdir(parents=True)
        (old / "hello.txt").write_text("someone else's\n")
        restored, lost = rewound(new, server, home, sid, extra_dirs=(tmp_path / "src",))
    assert (old / "hello.txt").read_text() == "someone else's\n"
    assert (new / "hello.txt").read_text() == "two\n"
    assert restored == [], restored
    assert lost == ("1 file left as it is: an earlier version saved it by the path the project had before it "
                    "was moved or renamed, and where it goes in the project now is not known: "
                    f"{old.resolve() / 'hello.txt'}"), lost


async def test_an_absolute_path_in_the_folder_a_checkpoint_recorded_is_taken_where_the_project_is(
        tmp_path: Path) -> None:
    """A list that names a file by absolute path in the project's folder it recorded (written by
    hand, or by a later version) is read as the file of that name in the project now; a file outside
    it (an --add-dir folder's) keeps its path."""
    old, new, home, lib = tmp_path / "src" / "app", tmp_path / "work" / "app2", tmp_path / "home", tmp_path / "lib"
    lib.mkdir()
    with FakeOpenAIServer(editor) as server:
        sid, listed = await written_twice(old, server, home)
        data = json.loads(listed.read_text())
        for entry in data["checkpoints"]:
            root = Path(entry.setdefault("root", str(old.resolve())))
            entry["saved"] = {str(root / p): v for p, v in entry["saved"].items()}
            entry["left"] = {str(root / p): v for p, v in entry["left"].items()}
        data["checkpoints"][1]["saved"][str(lib / "made.txt")] = None  # made by the turn: a rewind removes it
        listed.write_text(json.dumps(data))
        (lib / "made.txt").write_text("made\n")
        moved(old, new, home)
        restored, lost = rewound(new, server, home, sid, extra_dirs=(lib,))
    assert (new / "hello.txt").read_text() == "one\n"
    assert not (lib / "made.txt").exists()
    assert sorted(restored) == sorted([new.resolve() / "hello.txt", lib / "made.txt"]) and lost == "", (restored, lost)


async def test_the_files_read_before_the_turn_are_still_read_after_a_rewind_in_the_moved_project(
        tmp_path: Path) -> None:
    """The reads a checkpoint keeps (for edit_file, which asks for a file to be read first) name the
    project's files relative to it too: before, a rewind there gave back the reads of the old paths,
    and every file read before that turn had to be read again before an edit."""
    old, new, home = tmp_path / "src" / "app", tmp_path / "work" / "app2", tmp_path / "home"
    with FakeOpenAIServer(editor) as server:
        sid, _ = await written_twice(old, server, home)
        moved(old, new, home)
        s = opened(new, server, home, sid)
        try:
            s.rewind(1)
            read = s.env.read_state.is_current(new.resolve() / "hello.txt"), s.env.read_state.paths()
        finally:
            s.close()
    assert read == (True, [new.resolve() / "hello.txt"]), read


def test_the_command_line_in_the_moved_project(tmp_path: Path, zygote: Zygote) -> None:
    """As a user meets it: two `-p` turns in ~/src/app, the project moved to ~/work/app2 (its
    sessions folder with it), then `-c -p "/rewind 1" --yes` there."""
    old, new, home = tmp_path / "src" / "app", tmp_path / "work" / "app2", tmp_path / "home"
    old.mkdir(parents=True)
    (old / "hello.txt").write_text("zero\n")
    with FakeOpenAIServer(editor) as server:
        for args in (("-p", "write one", "--yes"), ("-p", "write two", "--yes", "-c")):
            done = Cli(home, old, zygote)(*args, *fake(server))
            assert done.code == 0, done.stderr
        moved(old, new, home)
        listed = Cli(home, new, zygote)("-p", "/rewind", *fake(server), "-c")
        back = Cli(home, new, zygote)("-p", "/rewind 1", *fake(server), "-c", "--yes")
    assert "write two  (1 file to restore)" in listed.stdout, listed.stdout
    assert back.code == 0 and back.stdout.strip() == "rewound; restored 1 file", (back.stdout, back.stderr)
    assert (new / "hello.txt").read_text() == "one\n"
