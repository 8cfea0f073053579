"""A turn saves the conversation it ran on, whatever was done to `AgentSession.messages` before it.

A program using the session cut its history back (an answer asked for again, a branch) without
going through the store, then ran a turn: the turn took the shorter history for what the session
file held and appended to it, so the file held the old turns and the new one, and `-c` resumed a
conversation the process never had. Now the turn makes the file hold the conversation first: what
it held goes to an archive (as before a compaction), the file is rewritten, and the turn is saved
after it. A history left as it was is appended to, as always: nothing archived, nothing rewritten."""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_agent import crashpoints
from compact_agent.agent.run.runner import AgentSession
from compact_agent.session.store import load_session_file
from tests.e2e.test_rewind_after_compaction import prompts, resumed, session
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def ok(req) -> Reply:
    return Reply.text("ok")


async def three_turns(s: AgentSession) -> None:
    for said in ("one", "two", "three"):
        await s.run_turn(said)


async def three_turns_saved(tmp_path: Path, server: FakeOpenAIServer) -> str:
    """A session of three turns, closed: its id."""
    s = session(tmp_path, server)
    try:
        await three_turns(s)
        return s.session_id
    finally:
        s.close()


async def test_a_history_cut_back_in_this_process_is_what_the_file_holds_after_the_turn(tmp_path):
    with FakeOpenAIServer(ok) as server:
        s = session(tmp_path, server)
        try:
            await three_turns(s)
            assert s.store.archives() == []  # turns on an unedited history append
            s.messages = s.messages[:2]  # "one" and its answer
            await s.run_turn("four")
            live, sid = prompts(s.messages), s.session_id
            [archive] = s.store.archives()
        finally:
            s.close()
        assert live == ["one", "four"]
        assert resumed(tmp_path, server, sid) == live
        assert prompts(load_session_file(archive).messages) == ["one", "two", "three"]  # kept, not lost


async def test_a_history_cut_in_place_is_saved_too(tmp_path):
    with FakeOpenAIServer(ok) as server:
        s = session(tmp_path, server)
        try:
            await three_turns(s)
            del s.messages[4:]  # the same list, without "three"
            await s.run_turn("four")
            live, sid = prompts(s.messages), s.session_id
        finally:
            s.close()
        assert live == ["one", "two", "four"]
        assert resumed(tmp_path, server, sid) == live


async def test_a_resumed_history_cut_before_its_first_turn_is_saved(tmp_path):
    """The process never wrote this session: what the file holds is read to know."""
    with FakeOpenAIServer(ok) as server:
        sid = await three_turns_saved(tmp_path, server)
        s = session(tmp_path, server, session_id=sid)
        try:
            s.messages = s.messages[:4]
            await s.run_turn("four")
            live = prompts(s.messages)
        finally:
            s.close()
        assert live == ["one", "two", "four"]
        assert resumed(tmp_path, server, sid) == live


async def test_a_resumed_session_that_is_not_edited_is_appended_to(tmp_path):
    with FakeOpenAIServer(ok) as server:
        sid = await three_turns_saved(tmp_path, server)
        s = session(tmp_path, server, session_id=sid)
        try:
            lines = s.store.path.read_bytes().count(b"\n")
            await s.run_turn("four")
            assert s.store.archives() == []
            assert s.store.path.read_bytes().count(b"\n") == lines + 2  # the prompt's request and its answer
        finally:
            s.close()
        assert resumed(tmp_path, server, sid) == ["one", "two", "three", "four"]


async def test_a_rewind_that_could_not_archive_leaves_the_next_turn_on_the_whole_conversation(tmp_path):
    """A `/rewind` that could not archive the session (a full disk) before rewriting it had cut the
    conversation and put the files back already; the next turn appended to the file that still held
    the turns undone, and `-c` brought them back. It now changes nothing when it cannot save first
    (tests/reliability/test_disk_full_rewind.py): the next turn goes on from the whole conversation."""
    with FakeOpenAIServer(ok) as server:
        s = session(tmp_path, server)
        try:
            await three_turns(s)
            crashpoints.configure("archive.partial:1:enospc")
            with pytest.raises(OSError, match="No space left"):
                s.rewind(2)
            crashpoints.configure("")  # space freed
            await s.run_turn("four")
            live, sid = prompts(s.messages), s.session_id
        finally:
            crashpoints.configure("")
            s.close()
        assert live == ["one", "two", "three", "four"]
        assert resumed(tmp_path, server, sid) == live
