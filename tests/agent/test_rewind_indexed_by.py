"""`rewinding.indexed_by`: the conversation a checkpoint indexes, where `/rewind` finds the prompt it
gives back whole (tests/ui/test_rewind_prompt_from_archive.py). A checkpoint made before a compaction
indexes the transcript that compaction archived, taken as the rewind takes it: one of the session's own
archives that still holds the message the checkpoint was made after; else, or unreadable, None (the
checkpoint's preview comes back, and the rewind says why)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from compact_agent.agent.run import rewinding
from compact_agent.agent.run.rewinding import indexed_by
from compact_agent.agent.tools.checkpoint_entry import Checkpoint, message_key
from compact_agent.session.store import SessionStore


def conversation() -> list:
    return [ModelRequest(parts=[UserPromptPart("first")]), ModelResponse(parts=[TextPart("one")]),
            ModelRequest(parts=[UserPromptPart("second, long " + "word " * 300)]),
            ModelResponse(parts=[TextPart("two")])]


@pytest.fixture
def archived(tmp_path: Path) -> tuple[SessionStore, Path, Checkpoint]:
    """A session whose conversation was archived, and a checkpoint of its second prompt made before."""
    store = SessionStore(tmp_path / "sessions", "s1")
    messages = conversation()
    store.append(messages)
    archive = store.archive()
    cp = Checkpoint(index=1, time=0.0, prompt="second, long word…", history_len=2, turn_index=1,
                    archive=str(archive), anchor=message_key(messages[1]))
    return store, archive, cp


def test_a_checkpoint_since_the_compaction_indexes_the_live_conversation(archived) -> None:
    store, _, cp = archived
    live = conversation()[:2]
    assert indexed_by(dataclasses.replace(cp, archive=None), live, store.archives()) is live


def test_one_before_it_indexes_the_archive_which_holds_the_prompt_whole(archived) -> None:
    store, _, cp = archived
    found = indexed_by(cp, [], store.archives())
    assert found is not None and len(found) == 4
    assert found[cp.history_len].parts[0].content == conversation()[2].parts[0].content


def test_an_archive_not_the_sessions_own_or_not_holding_its_message_is_not_taken(archived, tmp_path) -> None:
    store, archive, cp = archived
    assert indexed_by(cp, [], []) is None  # not one of this session's archives
    other = tmp_path / "elsewhere.jsonl"
    other.write_bytes(archive.read_bytes())
    assert indexed_by(dataclasses.replace(cp, archive=str(other)), [], store.archives()) is None
    assert indexed_by(dataclasses.replace(cp, anchor="0" * 32), [], store.archives()) is None  # another message
    assert indexed_by(dataclasses.replace(cp, history_len=9), [], store.archives()) is None  # shorter than that
    archive.unlink()
    assert indexed_by(cp, [], store.archives()) is None  # gone


def test_an_archive_that_cannot_be_read_gives_none_not_an_error(archived, monkeypatch) -> None:
    store, _, cp = archived

    def unreadable(path: Path, *args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(rewinding, "load_session_file", unreadable)
    assert indexed_by(cp, [], store.archives()) is None
