"""An archive the analyzer checked (one of this session's, a regular file in its compact-history/
folder) was then opened again by its path: what stood there by the time of that open was read,
whatever it was. A link to another project's session swapped in after the check was rebuilt into
this session's replay, and a pipe swapped in held the analyzer for ever. The archive is now opened
once, a link not followed, and read only when that descriptor is a regular file; else its note says
why, and the compacted history is replayed."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelRequest, ToolCallPart, UserPromptPart

from compact_agent.replay import _compact_agent
from compact_agent.replay.importers import TranscriptError, load_transcript
from compact_agent.session.store import SessionStore
from tests.session.test_private_file_not_regular import within

from .test_archive_chain_confined import STAMP, calls, compacted, exchange, note

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and symlinks")


def swapped_after_find(monkeypatch: pytest.MonkeyPatch, swap: object) -> None:
    """`Archives.find` as it is, then `swap(path)` on what it found: the file changed between the check and the read."""
    find = _compact_agent.Archives.find

    def then_swapped(self: _compact_agent.Archives, boundary: object, read: set[str]) -> tuple[Path | None, str]:
        found, why = find(self, boundary, read)  # type: ignore[arg-type]
        if found is not None:
            swap(found)  # type: ignore[operator]
        return found, why

    monkeypatch.setattr(_compact_agent.Archives, "find", then_swapped)


def setup(tmp_path: Path) -> tuple[Path, Path, Path]:
    """The session file, its archive (a regular file, one of its own) and another project's session."""
    other = SessionStore(tmp_path / "other", "s9")
    other.append([ModelRequest(parts=[UserPromptPart("the other project's words")]), *exchange(7, "secret")])
    history = tmp_path / "here" / "compact-history"
    history.mkdir(parents=True)
    archive = history / f"s1-{STAMP.format(1)}.jsonl"
    SessionStore(history, archive.stem).append(exchange(0))
    return compacted(tmp_path / "here", "s1.jsonl", str(archive), 1), archive, other.path


def test_an_archive_swapped_for_a_link_after_its_check_is_not_followed(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    session, archive, victim = setup(tmp_path)
    assert calls(session) == ["c0", "c1"]  # as it is, the archive is read

    def to_link(found: Path) -> None:
        found.unlink()
        found.symlink_to(victim)

    swapped_after_find(monkeypatch, to_link)
    t = load_transcript(session)
    assert [p.tool_call_id for m in t.messages for p in m.parts if isinstance(p, ToolCallPart)] == ["c1"]
    assert not any("secret" in str(getattr(p, "content", "")) for m in t.messages for p in m.parts)
    assert note(session, str(archive), "it is a link now (not followed)") in t.warnings


def test_an_archive_swapped_for_a_pipe_after_its_check_is_not_waited_on(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    session, archive, _ = setup(tmp_path)

    def to_pipe(found: Path) -> None:
        found.unlink()
        os.mkfifo(found)

    swapped_after_find(monkeypatch, to_pipe)
    with within(10):
        t = load_transcript(session)
    assert calls(session) == ["c1"]
    assert note(session, str(archive), "it is not a regular file now (a pipe, a device or a folder)") in t.warnings


def test_a_session_file_swapped_for_a_pipe_after_its_sniff_is_one_line(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The file given, read once to tell its format and again to be rebuilt: a pipe in its place by then
    is refused in the transcript's one line, not waited on."""
    session, _, _ = setup(tmp_path)
    rebuild = _compact_agent.rebuild

    def swapped(path: Path) -> object:
        path.unlink()
        os.mkfifo(path)
        return rebuild(path)

    monkeypatch.setattr(_compact_agent, "rebuild", swapped)
    with within(10), pytest.raises(TranscriptError) as e:
        load_transcript(session)
    assert str(e.value) == f"cannot read transcript {session}: not a regular file"
