"""`/rewind N` over a file changed since the agent wrote it (by hand, or by a command): the REPL's
question names the file, and the version the rewind replaces is kept, fsynced, in the session's
folder, the line saying where (print mode too). Before, the question said only "the files changed
since go back" and the rewind overwrote the user's own lines with no copy anywhere."""

from __future__ import annotations

import errno
import io
from pathlib import Path

import pytest
from rich.console import Console

from compact_agent.agent.run.rewinding import FilesNotRestored
from compact_agent.agent.run.runner import AgentSession
from compact_agent.agent.tools import edits
from tests.e2e.test_rewind_after_compaction import editor, session, written_twice
from tests.fakes.openai_server import FakeOpenAIServer

from .repl_driver import drive
from .test_command_edges import clean, show


async def written_twice_then_by_hand(s: AgentSession, line: str) -> Path:
    """hello.txt at "zero", written "one" then "two" by the agent's turns, then `line` added by hand."""
    hello = await written_twice(s)
    with hello.open("a") as f:
        f.write(line)
    return hello


async def test_a_rewind_keeps_the_version_changed_by_hand_and_says_where(tmp_path: Path) -> None:
    with FakeOpenAIServer(editor) as server:
        s = session(tmp_path, server)
        try:
            hello = await written_twice_then_by_hand(s, "# MY PRECIOUS MANUAL LINE\n")
            out = await show(s, "/rewind 1")
            clean(out)
            assert hello.read_text() == "one\n"
            kept = list((s.store.dir / "rewind-kept").glob("*/hello.txt"))
            assert [k.read_text() for k in kept] == ["two\n# MY PRECIOUS MANUAL LINE\n"], kept
            assert ("rewound; restored 1 file 1 file changed since the agent wrote it (by hand or by a command): "
                    f"hello.txt; the version the rewind replaced is kept in {kept[0].parent}") == out, out
            assert oct(kept[0].stat().st_mode & 0o777) == "0o600"
            await s.run_turn("write three")  # a rewind with nothing changed by hand keeps nothing
            out = await show(s, "/rewind 1")
            assert out == "rewound; restored 1 file", out
            assert len(list((s.store.dir / "rewind-kept").iterdir())) == 1
        finally:
            s.close()


async def test_the_repl_question_names_the_files_changed_by_hand(tmp_path: Path) -> None:
    hello = tmp_path / "project" / "hello.txt"
    hello.parent.mkdir()
    hello.write_text("zero\n")
    prompts = 0

    def at_prompt() -> None:
        nonlocal prompts
        prompts += 1
        if prompts == 3:  # both turns written: the user adds a line of their own
            with hello.open("a") as f:
                f.write("# mine\n")

    wide = Console(record=True, width=400, file=io.StringIO(), force_terminal=False)  # each line whole
    run = await drive(tmp_path, editor, ["write one\r", "write two\r", "/rewind 1\r", "y", "\x15\x04"],
                      keys_answer=True, at_prompt=at_prompt, permission_mode="yes", console=wide)
    out = " ".join(run.out.split())
    assert ("rewind to before “write two”? 6 messages and the files changed since go back; the plan of those turns "
            "too; changed by hand or by a command since the agent wrote it: hello.txt (the version replaced is kept "
            "in the session's folder) [y/N] y") in out, run.out
    assert hello.read_text() == "one\n"
    assert "(by hand or by a command): hello.txt; the version the rewind replaced is kept in" in out


async def test_a_write_that_failed_after_a_hand_edit_does_not_lose_it(tmp_path: Path, monkeypatch) -> None:
    """The turn after the hand edit saved the file, then its write failed (a full disk): what the
    agent last wrote is still the earlier turn's. The rewind took the file for one it never knew
    the writes of, and put back turn 0's version over the hand edit with no copy anywhere."""
    with FakeOpenAIServer(editor) as server:
        s = session(tmp_path, server)
        try:
            hello = s.cwd / "hello.txt"
            hello.write_text("zero\n")
            await s.run_turn("write one")
            with hello.open("a") as f:
                f.write("MINE\n")

            def full(path: Path, data: bytes, mode: int | None = None, *, checked: bool = False) -> None:
                raise OSError(errno.ENOSPC, "No space left on device", str(path))

            monkeypatch.setattr(edits, "atomic_write_bytes", full)
            await s.run_turn("write two")  # saved hello.txt, then could not write it
            monkeypatch.undo()
            assert hello.read_text() == "one\nMINE\n"
            assert s.checkpoints.changed(0) == [hello.resolve()]
            back = s.rewind(0)
            assert hello.read_text() == "zero\n"
            assert back.kept_in is not None and (back.kept_in / "hello.txt").read_text() == "one\nMINE\n"
        finally:
            s.close()


async def test_a_rewind_whose_files_cannot_be_put_back_names_the_copies_it_made(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The versions changed by hand are copied first; putting the files back then failed (a full
    disk): the folder stays, since some files may be replaced already, but the line named none, and
    the `/rewind 1` again it suggests copied to a second folder, naming only that one."""
    with FakeOpenAIServer(editor) as server:
        s = session(tmp_path, server)
        try:
            await written_twice_then_by_hand(s, "MINE\n")

            def full(n: int) -> None:
                raise OSError(errno.ENOSPC, "No space left on device")

            monkeypatch.setattr(s.checkpoints, "rewind", full)
            with pytest.raises(FilesNotRestored) as failed:  # said as print mode says it: its line, exit 1
                await show(s, "/rewind 1")
            out = str(failed.value)
            [kept] = (s.store.dir / "rewind-kept").glob("*/hello.txt")
            assert kept.read_text() == "two\nMINE\n"
            assert out.endswith("/rewind 1 again puts them back; the version changed by hand or by a command is kept "
                                f"in {kept.parent}"), out
        finally:
            s.close()
