"""A changed history on a full disk: the turn stops in one line, the session file keeps what it held.

A turn whose history no longer begins with what the session file holds (a program using the
session cut it back) archives what the file held, then rewrites the file. When the archive cannot
be written (injected ENOSPC, see compact_agent.crashpoints), the rewrite was skipped with a warning
in a log nobody reads, and the turn ran on: its messages were saved nowhere and the user was not
told. Now nothing is sent that could not be saved first: the turn ends with one line saying the
session could not be saved and why, the file is untouched, and the next turn saves it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from compact_agent import crashpoints
from compact_agent.error_text import describe_error
from compact_agent.session.store import load_session_file
from tests.e2e.test_rewind_after_compaction import prompts, resumed, session
from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .harness import temp_files


@pytest.fixture(autouse=True)
def disarm() -> Iterator[None]:
    yield
    crashpoints.configure("")


def ok(req) -> Reply:
    return Reply.text("ok")


async def test_a_changed_history_that_cannot_be_archived_stops_the_turn_and_keeps_the_file(tmp_path: Path) -> None:
    with FakeOpenAIServer(ok) as server:
        s = session(tmp_path, server)
        try:
            for said in ("one", "two", "three"):
                await s.run_turn(said)
            held = s.store.path.read_bytes()
            s.messages = s.messages[:2]  # "one" and its answer
            crashpoints.configure("archive.partial:1+:enospc")
            with pytest.raises(OSError) as info:
                await s.run_turn("four")
            line = describe_error(info.value)
            assert "\n" not in line and line.startswith("could not save the session: No space left on device")
            assert "the next message tries again" in line and "Error" not in line
            assert len(server.requests) == 3  # nothing went out that could not be saved first
            assert s.store.path.read_bytes() == held and s.store.archives() == []
            assert not temp_files(tmp_path / "home")
            crashpoints.configure("")  # space freed: the next turn saves the conversation
            await s.run_turn("four")
            live, sid = prompts(s.messages), s.session_id
            [archive] = s.store.archives()
        finally:
            s.close()
        assert live == ["one", "four"]
        assert prompts(load_session_file(s.store.path).messages) == live
        assert prompts(load_session_file(archive).messages) == ["one", "two", "three"]  # kept, not lost
        assert resumed(tmp_path, server, sid) == live
