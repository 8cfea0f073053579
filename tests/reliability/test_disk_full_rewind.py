"""`/rewind` on a full disk: nothing is rewound unless the session could be saved first.

A rewind put the files back and cut the conversation in the process, then archived the session
and rewrote it; when the archive could not be written (injected ENOSPC, see
compact_agent.crashpoints) the files and the process had gone back and the session file had not,
until the next turn rewrote it. Now the session is archived and rewritten first: when that fails
the rewind changes nothing (files, conversation, checkpoints) and says so in one line, and the same
rewind works once there is space. Files are put back last: one that cannot be (the disk full as
it is written) leaves the conversation back, saved, and the checkpoint there for the rewind again.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from compact_agent import crashpoints
from compact_agent.error_text import describe_error
from compact_agent.session.store import load_session_file
from tests.e2e.test_rewind_after_compaction import editor, prompts, resumed, session, written_twice
from tests.fakes.openai_server import FakeOpenAIServer
from tests.ui.test_rewind_files_not_restored import disk_full_for_the_rewind

from .harness import temp_files


@pytest.fixture(autouse=True)
def disarm() -> Iterator[None]:
    yield
    crashpoints.configure("")


async def test_a_rewind_that_cannot_archive_the_session_changes_nothing(tmp_path: Path) -> None:
    with FakeOpenAIServer(editor) as server:
        s = session(tmp_path, server)
        try:
            hello = await written_twice(s)
            held, before = s.store.path.read_bytes(), list(s.messages)
            crashpoints.configure("archive.partial:1+:enospc")
            with pytest.raises(OSError) as info:
                s.rewind(1)
            line = describe_error(info.value)
            assert "\n" not in line and line.startswith("/rewind 1 changed nothing: the session could not be saved")
            assert "No space left on device" in line and "Error" not in line
            assert hello.read_text() == "two\n"  # not put back
            assert s.messages == before and s.store.path.read_bytes() == held
            assert [cp.prompt for cp in s.checkpoints.list()] == ["write one", "write two"]
            assert s.store.archives() == [] and not temp_files(tmp_path / "home")
            await s.run_turn("what now")  # goes on from the whole conversation, as the file does
            assert prompts(s.messages) == ["write one", "write two", "what now"]
            crashpoints.configure("")  # space freed: the same rewind works
            back = s.rewind(1)
            sid = s.session_id
        finally:
            s.close()
        assert back.restored == [hello] and hello.read_text() == "one\n"
        assert prompts(s.messages) == ["write one"] == resumed(tmp_path, server, sid)
        [archive] = s.store.archives()
        assert prompts(load_session_file(archive).messages) == ["write one", "write two", "what now"]


async def test_files_that_cannot_be_put_back_leave_the_conversation_back_and_the_rewind_to_do_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAIServer(editor) as server:
        s = session(tmp_path, server)
        try:
            hello = await written_twice(s)
            disk_full_for_the_rewind(monkeypatch)  # the restored file cannot be written
            with pytest.raises(OSError) as info:
                s.rewind(1)
            line = describe_error(info.value)
            assert "\n" not in line and line.startswith("/rewind 1: the conversation went back and the session is saved")
            assert line.endswith("/rewind 1 again puts them back")
            assert prompts(s.messages) == ["write one"] == prompts(load_session_file(s.store.path).messages)
            assert len(s.checkpoints.list()) == 2  # still there for the rewind again
            monkeypatch.undo()
            back = s.rewind(1)
        finally:
            s.close()
        assert back.restored == [hello] and hello.read_text() == "one\n"
        assert prompts(s.messages) == ["write one"] and [cp.prompt for cp in s.checkpoints.list()] == ["write one"]
