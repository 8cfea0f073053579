"""The file changes under an edit: while the user is asked about it, between two part reads, by a
`chmod 444`, through a second name, or with its mtime put back. The user's change is never written
over, a read-only file is not changed, and a hard-linked file's other names are not written. Each
change is made by the test at that very moment (the question's answerer, a hook), so no race is
needed."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from compact_agent.agent.safety.permissions import Answer, Permissions
from compact_agent.agent.tools import file_state
from compact_agent.agent.tools.base import ToolEnv
from compact_agent.agent.tools.file_state import ReadFileState

from .test_tools import call, make_env

A_PY = "def greet(name):\n    return 'hello ' + name\n\n\nVALUE = 1\n"
USERS = "def greet(name):\n    return 'hello ' + name\n\n\nVALUE = 1\nUSER = 'keep me'\n"


def asking(work: Path, meanwhile: Callable[[], None]) -> tuple[ToolEnv, list[str]]:
    """A tool env whose user, asked about a change, does `meanwhile` before answering yes."""
    asked: list[str] = []

    def ask(tool: str, detail: str) -> Answer:
        asked.append(tool)
        meanwhile()
        return "once"

    env = make_env(work)
    env.permissions = Permissions(work, "ask", ask=ask)
    return env, asked


@pytest.mark.parametrize("tool", ["edit_file", "write_file"])
async def test_a_file_the_user_saves_while_asked_is_not_written_over(work: Path, tool: str) -> None:
    a = work / "a.py"
    a.write_text(A_PY)
    env, asked = asking(work, lambda: a.write_text(USERS))
    await call(env, "read_file", path="a.py")
    if tool == "edit_file":
        out = await call(env, "edit_file", path="a.py", old_string="VALUE = 1", new_string="VALUE = 2")
        verb = "edit"
    else:
        out = await call(env, "write_file", path="a.py", content="VALUE = 3\n")
        verb = "overwrite"
    assert asked == [tool]
    assert out == (f"refused: a.py was changed on disk after this {verb} was made from it (while the user was "
                   f"asked about it, say); nothing was written. Read it again before you {verb} it.")
    assert a.read_text() == USERS
    assert env.changes == []  # type: ignore[attr-defined]  # nothing told as written
    assert sorted(p.name for p in work.iterdir()) == ["a.py"]  # no temp file left
    again = await call(env, "edit_file", path="a.py", old_string="VALUE = 1", new_string="VALUE = 2")
    assert again.startswith("File changed on disk since it was read: a.py"), again


async def test_a_file_the_user_makes_while_asked_about_making_it_is_kept(work: Path) -> None:
    new = work / "new.py"
    env, asked = asking(work, lambda: new.write_text("print('user made me')\n"))
    out = await call(env, "write_file", path="new.py", content="print('agent made me')\n")
    assert asked == ["write_file"]
    assert out.startswith("refused: new.py was made by another while this write waited"), out
    assert new.read_text() == "print('user made me')\n"


async def test_a_file_made_after_the_last_look_is_not_written_over(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new file goes in place by a link, which fails on a file made even after the look before it."""
    new = work / "new.py"
    looked = file_state._holds

    def look_then_make(path: Path, folder: int | None, holding: bytes | None) -> bool:
        absent = looked(path, folder, holding)
        new.write_text("made just after the look\n")
        return absent

    monkeypatch.setattr(file_state, "_holds", look_then_make)
    out = await call(make_env(work), "write_file", path="new.py", content="print('agent made me')\n")
    assert out.startswith("refused: new.py was made by another while this write waited"), out
    assert new.read_text() == "made just after the look\n"
    assert sorted(p.name for p in work.iterdir()) == ["new.py"]


async def test_a_change_between_two_part_reads_is_not_undone(work: Path) -> None:
    """Lines 1-2 read, the user changes line 2, lines 3-5 read: a whole file written from what the
    model saw would put line 2 back. The reads saw two versions, so it is refused until read again."""
    a = work / "a.py"
    a.write_text(A_PY)
    env = make_env(work)
    await call(env, "read_file", path="a.py", offset=1, limit=2)
    a.write_text(A_PY.replace("'hello '", "'USER CHANGED '"))
    await call(env, "read_file", path="a.py", offset=3, limit=10)
    out = await call(env, "write_file", path="a.py", content=A_PY.replace("VALUE = 1", "VALUE = 2"))
    assert out.startswith("File changed on disk since it was read: a.py; read it again"), out
    assert "USER CHANGED" in a.read_text()
    await call(env, "read_file", path="a.py", offset=1, limit=2)  # seen as it is now
    out = await call(env, "edit_file", path="a.py", old_string="VALUE = 1", new_string="VALUE = 2")
    assert out.startswith("Edited a.py"), out


def test_part_reads_of_one_version_and_a_whole_read_are_current(tmp_path: Path) -> None:
    a = tmp_path / "a.py"
    a.write_text(A_PY)
    state = ReadFileState()
    state.record(a, a.stat().st_mtime_ns, True, offset=1, limit=2)
    state.record(a, a.stat().st_mtime_ns, True, offset=3, limit=2)
    assert state.is_current(a)
    a.write_text(USERS)
    state.record(a, a.stat().st_mtime_ns, True, offset=3, limit=2)
    assert not state.is_current(a)
    saved = ReadFileState.from_json(state.to_json())  # kept over a resume
    assert saved.get(a) == state.get(a) and not saved.is_current(a)
    state.record(a, a.stat().st_mtime_ns)  # the whole file read
    assert state.is_current(a)


@pytest.mark.parametrize("change", ["append", "same size"])
async def test_a_change_that_puts_the_mtime_back_is_seen(work: Path, change: str) -> None:
    """`touch -r` after a change, or a file system whose clock is coarse: the mtime alone says
    nothing changed; the size, or the content's digest, does."""
    a = work / "a.py"
    a.write_text(A_PY)
    env = make_env(work)
    await call(env, "read_file", path="a.py")
    st = a.stat()
    users = A_PY + "USER WORK KEEP ME\n" if change == "append" else A_PY.replace("VALUE = 1", "VALUE = 7")
    a.write_text(users)
    os.utime(a, ns=(st.st_atime_ns, st.st_mtime_ns))
    out = await call(env, "write_file", path="a.py", content="def greet(name):\n    return 'yo ' + name\n")
    assert out.startswith("File changed on disk since it was read: a.py"), out
    assert a.read_text() == users


def test_each_turns_checkpoint_of_the_reads_hashes_no_file_again(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The reads' checkpoint is made at every turn: a file is judged there by its mtime and size, by
    its digest only when an edit asks (60 read files of 3 MB were hashed again at every turn)."""
    small, big = tmp_path / "a.py", tmp_path / "data.csv"
    small.write_text(A_PY)
    big.write_bytes((b"x" * 99 + b"\n") * 20000)  # 2 MB: past a checkpoint's hash, not an edit's digest
    state = ReadFileState()
    for f in (small, big):
        state.record(f, f.stat().st_mtime_ns, True, offset=1, limit=10)
    opened: list[Path] = []
    real = file_state.open_regular
    monkeypatch.setattr(file_state, "open_regular", lambda path: opened.append(Path(path)) or real(path))
    kept = state.current_json()
    files = json.loads(kept)["files"]
    assert [(f["path"], f["sha256"]) for f in files] == [
        (str(small), hashlib.sha256(A_PY.encode()).hexdigest()), (str(big), None)]
    assert opened == []
    st = big.stat()  # changed, its size and mtime put back: the edit's question still sees it
    with big.open("r+b") as f:
        f.write(b"USER")
    os.utime(big, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert not state.is_current(big) and opened == [big]
    state.rewound(kept, [])  # back to that turn: the read kept its digest
    assert not state.is_current(big) and state.is_current(small)


@pytest.mark.parametrize("tool", ["edit_file", "write_file"])
async def test_a_read_only_file_is_not_changed(work: Path, tool: str) -> None:
    notes = work / "notes.txt"
    notes.write_text("line one\nline two\n")
    env, asked = asking(work, lambda: None)
    await call(env, "read_file", path="notes.txt")
    notes.chmod(0o444)
    if tool == "edit_file":
        out = await call(env, "edit_file", path="notes.txt", old_string="line two", new_string="line 2")
    else:
        out = await call(env, "write_file", path="notes.txt", content="new\n")
    assert out.endswith("refused: notes.txt is read-only (mode 0444); make it writable first if it should change."), out
    assert asked == []  # not asked about a change that cannot be made
    assert notes.read_text() == "line one\nline two\n"
    assert stat.S_IMODE(notes.stat().st_mode) == 0o444


async def test_a_file_made_read_only_while_asked_is_not_changed(work: Path) -> None:
    notes = work / "notes.txt"
    notes.write_text("line one\nline two\n")
    notes.chmod(0o640)
    env, _ = asking(work, lambda: notes.chmod(0o440))
    await call(env, "read_file", path="notes.txt")
    out = await call(env, "edit_file", path="notes.txt", old_string="line two", new_string="line 2")
    assert out == "refused: notes.txt is read-only (mode 0440); make it writable first if it should change."
    assert notes.read_text() == "line one\nline two\n"


async def test_an_edit_keeps_the_files_mode(work: Path) -> None:
    notes = work / "notes.txt"
    notes.write_text("line one\nline two\n")
    notes.chmod(0o640)
    env = make_env(work)
    await call(env, "read_file", path="notes.txt")
    out = await call(env, "edit_file", path="notes.txt", old_string="line two", new_string="line 2")
    assert out.startswith("Edited notes.txt (1 replacement)"), out
    assert stat.S_IMODE(notes.stat().st_mode) == 0o640


async def test_a_hard_linked_file_is_written_as_a_new_file_and_the_other_names_keep_the_old_text(
        work: Path, tmp_path: Path) -> None:
    """A name in the project of a file also named outside it (a package manager's store, a `cp -al`
    snapshot): written into, the file outside would change, where the tools never write."""
    store = tmp_path / "store"
    store.mkdir()
    outside = store / "index.js"
    outside.write_text("module.exports = 1;\n")
    (work / "node_modules").mkdir()
    inside = work / "node_modules" / "index.js"
    os.link(outside, inside)
    env = make_env(work)
    await call(env, "read_file", path="node_modules/index.js")
    out = await call(env, "edit_file", path="node_modules/index.js", old_string="= 1", new_string="= 2")
    assert out.startswith("Edited node_modules/index.js (1 replacement, written as a new file: it had 2 names "
                          "(hard links), the other keeps the old text); lines"), out
    assert outside.read_text() == "module.exports = 1;\n"
    assert inside.read_text() == "module.exports = 2;\n"
    assert inside.stat().st_nlink == outside.stat().st_nlink == 1
    os.link(inside, store / "a.js")
    os.link(inside, store / "b.js")
    out = await call(env, "write_file", path="node_modules/index.js", content="x = 1\n")
    assert out == "Overwrote node_modules/index.js (1 line, written as a new file: it had 3 names (hard links), " \
                  "the other 2 keep the old text).", out
    assert (store / "a.js").read_text() == (store / "b.js").read_text() == "module.exports = 2;\n"
    assert inside.read_text() == "x = 1\n"


async def test_a_file_the_user_removes_while_asked_is_not_made_again(work: Path) -> None:
    a = work / "a.py"
    a.write_text(A_PY)
    env, _ = asking(work, a.unlink)
    await call(env, "read_file", path="a.py")
    out = await call(env, "edit_file", path="a.py", old_string="VALUE = 1", new_string="VALUE = 2")
    assert out.startswith("refused: a.py was changed on disk after this edit was made from it"), out
    assert not a.exists()


async def test_a_hard_linked_file_the_user_saves_while_asked_is_not_written_over(work: Path, tmp_path: Path) -> None:
    a = work / "a.py"
    a.write_text(A_PY)
    os.link(a, tmp_path / "a_hardlink.py")
    env, _ = asking(work, lambda: a.write_text(USERS))  # in place, as an editor that keeps links writes
    await call(env, "read_file", path="a.py")
    out = await call(env, "edit_file", path="a.py", old_string="VALUE = 1", new_string="VALUE = 2")
    assert out.startswith("refused: a.py was changed on disk after this edit was made from it"), out
    assert (tmp_path / "a_hardlink.py").read_text() == a.read_text() == USERS


@pytest.mark.parametrize("change", ["touch", "rewritten"])
async def test_a_new_mtime_on_the_same_bytes_is_no_change(work: Path, change: str) -> None:
    """`touch`, a `sed -i` or formatter that changed nothing, a `git stash pop` of the same text: the
    mtime moves, the bytes the model saw are there. The edit goes through, and the read takes the mtime."""
    a = work / "a.py"
    a.write_text(A_PY)
    env = make_env(work)
    await call(env, "read_file", path="a.py")
    if change == "rewritten":  # a new file of the same bytes renamed over it, as sed -i does
        (work / "a.tmp").write_text(A_PY)
        os.replace(work / "a.tmp", a)
    st = a.stat()
    os.utime(a, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    assert env.read_state.is_current(a)
    assert env.read_state.get(a).mtime_ns == a.stat().st_mtime_ns  # type: ignore[union-attr]
    assert json.loads(env.read_state.current_json())["files"]  # each turn's checkpoint of the reads agrees
    out = await call(env, "edit_file", path="a.py", old_string="VALUE = 1", new_string="VALUE = 2")
    assert out.startswith("Edited a.py (1 replacement)"), out


async def test_a_file_past_the_digest_limit_with_a_new_mtime_must_be_read_again(
        work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(file_state, "DIGEST_BYTES", 16)  # A_PY is larger: not hashed, judged by its mtime
    a = work / "a.py"
    a.write_text(A_PY)
    env = make_env(work)
    await call(env, "read_file", path="a.py")
    st = a.stat()
    os.utime(a, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    out = await call(env, "edit_file", path="a.py", old_string="VALUE = 1", new_string="VALUE = 2")
    assert out.startswith("File changed on disk since it was read: a.py"), out


@pytest.mark.parametrize("tool", ["edit_file", "write_file"])
@pytest.mark.parametrize("meanwhile", ["saved", "removed"])
async def test_a_write_refused_as_changed_while_asked_leaves_no_file_to_restore(work: Path, tmp_path: Path,
                                                                                tool: str, meanwhile: str) -> None:
    """Refused before the checkpoint saves the file: /rewind listed it as a file to restore and
    "restored" it, the user's version put back over itself."""
    from compact_agent.agent.tools.checkpoints import Checkpoints

    a = work / "a.py"
    a.write_text(A_PY)

    def change() -> None:
        a.write_text(USERS) if meanwhile == "saved" else a.unlink()

    env, _ = asking(work, change)
    env.checkpoints = Checkpoints(tmp_path / "store")
    env.checkpoints.begin(0, 0, "change it")
    await call(env, "read_file", path="a.py")
    if tool == "edit_file":
        out = await call(env, "edit_file", path="a.py", old_string="VALUE = 1", new_string="VALUE = 2")
    else:
        out = await call(env, "write_file", path="a.py", content="VALUE = 3\n")
    assert out.startswith("refused: a.py was changed on disk after this"), out
    assert env.checkpoints.get(0).saved == {}  # type: ignore[union-attr]
    assert Checkpoints(tmp_path / "store").get(0).saved == {}  # type: ignore[union-attr]  # nor in the list saved
    assert env.checkpoints.rewind(0)[1] == []
    assert a.read_text() == USERS if meanwhile == "saved" else not a.exists()


@pytest.mark.parametrize("tool", ["edit_file", "write_file"])
async def test_a_binary_file_is_refused_as_binary_not_as_unread(work: Path, tool: str) -> None:
    """read_file shows no binary file, so "read it with read_file first" sent the model round in a loop."""
    data = work / "data"
    data.mkdir()
    (data / "mixed.dat").write_bytes(b"HEAD\x00\x01\x02" + bytes(range(256)) * 4)
    env = make_env(work)
    shown = await call(env, "read_file", path="data/mixed.dat")
    assert shown == "data/mixed.dat is a binary file (1031 bytes); not shown."
    if tool == "edit_file":
        out = await call(env, "edit_file", path="data/mixed.dat", old_string="HEAD", new_string="BODY")
    else:
        out = await call(env, "write_file", path="data/mixed.dat", content="text now\n")
    assert out == ("refused: data/mixed.dat is a binary file (1031 bytes); edit_file and write_file change only "
                   "text files: change it with bash (a command or a script) if it should change.")
    assert "\n" not in out
    assert (data / "mixed.dat").read_bytes().startswith(b"HEAD\x00")
