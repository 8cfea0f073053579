"""An archive that is there but holds no conversation (emptied with `: > file`, or overwritten with bytes
that are no session file) is not followed, as a missing one is not. It was joined as it was: the replay
of the compacted history was said to be 'rebuilt ... across 1 compaction from the archives', that
compaction placed before the first message, so the usage the session file records went unused ('no
recorded usage'). Now the warning names the archive and why, and the file's usage is fitted."""

from __future__ import annotations

from pathlib import Path

from compact_agent.replay.importers import load_transcript
from compact_agent.replay.sizing import calibrate
from compact_agent.session.store import SessionStore

from .test_archive_chain_confined import STAMP, compacted, exchange, note


def session_with_archive(folder: Path, content: bytes) -> tuple[Path, Path]:
    """Session s1, compacted once, then two exchanges with recorded usage; its archive holds `content`."""
    archive = folder / "compact-history" / f"s1-{STAMP.format(1)}.jsonl"
    archive.parent.mkdir(parents=True)
    session = compacted(folder, "s1.jsonl", str(archive), 1)
    SessionStore(folder, "s1").append([*exchange(2), *exchange(3)])
    archive.write_bytes(content)
    return session, archive


def test_an_empty_archive_is_not_followed_and_the_usage_is_fitted(tmp_path: Path) -> None:
    session, archive = session_with_archive(tmp_path, b"")
    t = load_transcript(session)
    assert note(session, str(archive), "it is empty") in t.warnings, t.warnings
    assert not any("rebuilt the full conversation" in w for w in t.warnings), t.warnings
    assert t.recorded_compactions == []
    fit = calibrate(t)
    assert fit.samples == 3 and not any("no recorded usage" in n for n in fit.notes), fit


def test_an_archive_of_random_bytes_is_not_followed(tmp_path: Path) -> None:
    session, archive = session_with_archive(tmp_path, b"\x8f\x00garbage\xff\n" * 10)
    t = load_transcript(session)
    assert note(session, str(archive), "none of its 10 lines can be read (it is not a session file)") \
        in t.warnings, t.warnings
    assert not any("rebuilt the full conversation" in w or "not a session file: none" in w for w in t.warnings)
    assert calibrate(t).samples == 3


def test_an_archive_of_blank_lines_is_empty(tmp_path: Path) -> None:
    session, archive = session_with_archive(tmp_path, b"\n\n  \n")
    assert note(session, str(archive), "it is empty") in load_transcript(session).warnings


def test_a_real_archive_is_still_followed(tmp_path: Path) -> None:
    archive = tmp_path / "compact-history" / f"s1-{STAMP.format(1)}.jsonl"
    archive.parent.mkdir(parents=True)
    SessionStore(archive.parent, archive.stem).append(exchange(0))
    session = compacted(tmp_path, "s1.jsonl", str(archive), 1)
    t = load_transcript(session)
    assert "rebuilt the full conversation across 1 compaction from the archives" in t.warnings
    assert len(t.recorded_compactions) == 1
