"""A session's id is its file's name, so a session file renamed (moved to another name, which the agent
then resumes under) keeps the archives written under the id it had: `compact-history/<old id>-<stamp>.jsonl`.
The chain was looked for by the new name only, every archive before the rename said to be 'not one of this
session's archives', and the replay began at the compacted history. An archive of an id no session file
beside it holds any more is now this session's; another session's, whose file is beside it, is still not
read, nor a link out of the folder, nor a pipe."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from compact_agent.replay.importers import load_transcript
from compact_agent.session.store import SessionStore

from .test_archive_chain_confined import STAMP, calls, compacted, exchange, loaded_apart, note

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and symlinks")


def renamed_session(folder: Path) -> tuple[Path, Path]:
    """Session s1 compacted once (its archive under s1), then its file renamed to work.jsonl and
    compacted again under that name: (the session file, s1's archive)."""
    history = folder / "compact-history"
    history.mkdir(parents=True)
    first = history / f"s1-{STAMP.format(1)}.jsonl"
    SessionStore(history, first.stem).append(exchange(0))
    session = compacted(folder, "s1.jsonl", str(first), 1)
    session.rename(folder / "work.jsonl")
    second = history / f"work-{STAMP.format(2)}.jsonl"
    (folder / "work.jsonl").rename(second)
    return compacted(folder, "work.jsonl", str(second), 2), first


def test_the_archives_of_a_renamed_session_are_followed(tmp_path: Path) -> None:
    session, _ = renamed_session(tmp_path)
    assert calls(session) == ["c0", "c1", "c2"]  # through its archive under the new name to the one under s1


def test_another_sessions_archives_are_still_not_followed(tmp_path: Path) -> None:
    """A session file s1.jsonl beside it: the archives under s1 are that session's (a copy of it is no rename)."""
    session, first = renamed_session(tmp_path)
    SessionStore(tmp_path, "s1").append(exchange(9))
    second = tmp_path / "compact-history" / f"work-{STAMP.format(2)}.jsonl"
    assert calls(session) == ["c1", "c2"]
    assert note(second, str(first), "it is not one of this session's archives in the compact-history/ folder "
                "beside it") in load_transcript(session).warnings


def test_a_renamed_sessions_archive_is_confined_as_its_own_are(tmp_path: Path) -> None:
    """A link out of the folder under the old id is not followed; a pipe under it is not opened."""
    outside = tmp_path / "elsewhere.jsonl"
    SessionStore(tmp_path, "elsewhere").append(exchange(7, "secret"))
    history = tmp_path / "project" / "compact-history"
    history.mkdir(parents=True)
    linked = history / f"s1-{STAMP.format(1)}.jsonl"
    linked.symlink_to(outside)
    session = compacted(tmp_path / "project", "work.jsonl", str(linked), 1)
    assert calls(session) == ["c1"]
    assert note(session, str(linked), f"it is a link out of the compact-history/ folder (to {outside})") \
        in load_transcript(session).warnings
    linked.unlink()
    os.mkfifo(linked)
    assert note(session, str(linked), "it is not a regular file (a pipe, a device or a folder)") \
        in loaded_apart(session)
