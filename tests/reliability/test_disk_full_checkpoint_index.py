"""`/rewind` on a disk that is full for the checkpoint list alone: the session was rewritten and the
files put back, then the list of the checkpoints left could not be written. The list on disk still
named the checkpoints rewound, and a later run offered them, their turns gone from the conversation
(`/rewind 1` to before 'write two', which is no longer there). Now the shorter list is written over
the old one, which needs no new room, and the rewind is whole: a later run offers the checkpoints
kept. Where even that fails, the stale list is deleted (which needs no space): a later run offers
none until the next message saves the ones left, and the line says so."""

from __future__ import annotations

import errno
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from compact_agent.agent.tools import checkpoint_store
from compact_agent.error_text import describe_error
from tests.e2e.test_rewind_after_compaction import editor, prompts, session
from tests.fakes.openai_server import FakeOpenAIServer

from .test_disk_full_rewind import written_twice


def no_room(monkeypatch: pytest.MonkeyPatch, in_place: bool) -> list[bool]:
    """While its one item is True, writing the checkpoint list anew fails as on a full disk (and,
    with `in_place`, writing it over the old one too); every other write (the session, its archive,
    the files put back) goes through."""
    real, over, full = checkpoint_store.atomic_write_bytes, checkpoint_store.overwrite_in_place, [False]

    def write(path: Path, data: bytes, mode: int | None = None) -> None:
        if full[0] and Path(path).name == "checkpoints.json":
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        real(path, data, mode)

    def overwrite(path: Path, data: bytes) -> None:
        if full[0] and in_place:
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        over(path, data)

    monkeypatch.setattr(checkpoint_store, "atomic_write_bytes", write)
    monkeypatch.setattr(checkpoint_store, "overwrite_in_place", overwrite)
    return full


@pytest.fixture
def full_for_the_list(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """Not even the shorter list can be written over the old one (a copy-on-write file system)."""
    yield no_room(monkeypatch, in_place=True)


async def test_the_checkpoints_kept_are_written_over_the_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    full = no_room(monkeypatch, in_place=False)
    with FakeOpenAIServer(editor) as server:
        s = session(tmp_path, server)
        try:
            hello = await written_twice(s)
            full[0] = True
            s.rewind(1)  # whole: nothing to say
            full[0] = False
            assert hello.read_text() == "one\n"
            sid = s.session_id
        finally:
            s.close()
        assert listed(tmp_path, server, sid) == (["write one"], ["write one"])


def listed(tmp_path: Path, server: FakeOpenAIServer, sid: str) -> tuple[list[str], list[str]]:
    """The checkpoints a later run offers, and the conversation it resumes."""
    later: Any = session(tmp_path, server, session_id=sid)
    try:
        return [cp.prompt for cp in later.checkpoints.list()], prompts(later.messages)
    finally:
        later.close()


async def test_a_later_run_offers_no_checkpoint_a_rewind_took(tmp_path: Path, full_for_the_list: list[bool]) -> None:
    with FakeOpenAIServer(editor) as server:
        s = session(tmp_path, server)
        try:
            hello = await written_twice(s)
            full_for_the_list[0] = True
            with pytest.raises(OSError) as info:
                s.rewind(1)
            full_for_the_list[0] = False
            line = describe_error(info.value)
            assert "\n" not in line and line.startswith(
                "/rewind 1: the conversation went back and the session is saved, but the checkpoints left could "
                "not be saved (No space left on device); "), line
            assert line.endswith("; a later run offers none until your next message saves them"), line
            assert hello.read_text() == "one\n"  # the files are back
            assert [cp.prompt for cp in s.checkpoints.list()] == ["write one"]
            sid = s.session_id
        finally:
            s.close()
        assert listed(tmp_path, server, sid) == ([], ["write one"])  # not 'write two', whose turn is gone


async def test_the_next_message_saves_the_checkpoints_left(tmp_path: Path, full_for_the_list: list[bool]) -> None:
    with FakeOpenAIServer(editor) as server:
        s = session(tmp_path, server)
        try:
            await written_twice(s)
            full_for_the_list[0] = True
            with pytest.raises(OSError):
                s.rewind(1)
            full_for_the_list[0] = False  # space again
            await s.run_turn("what now")
            sid = s.session_id
        finally:
            s.close()
        assert listed(tmp_path, server, sid) == (["write one", "what now"], ["write one", "what now"])
