"""Bytes that are not UTF-8 in the files Cline keeps beside a conversation — a task's ui_messages.json,
the compaction beside a session of its SDK — are read as U+FFFD as before and said in one line naming
the file, as the transcript's own are (test_invalid_utf8_said.py): they were replaced without a word."""

from __future__ import annotations

import json
from pathlib import Path

from compact_agent.replay import load_transcript

from .test_cline_sidecar import FIRST, SID, V2, fitted, write
from .test_cline_task_folder import history, started, task
from .test_usage_counts_strict_more import counts

LATIN1 = b"caf\xe9"  # "café" saved as Latin-1: one invalid byte
NOTE = ("invalid UTF-8 {} replaced by the replacement character (U+FFFD): the file is not all UTF-8 text "
        "(damaged, or written partly in another encoding)")


def test_invalid_bytes_in_a_tasks_ui_messages_are_said(tmp_path: Path) -> None:
    folder = task(tmp_path, history(), [started(950, -1, 10, 40, writes=2_000),
                                        started(2_500, 1, 5, 8, writes=600, reads=2_000)])
    ui = folder / "ui_messages.json"
    clean = load_transcript(folder / "api_conversation_history.json")
    assert not clean.warnings
    ui.write_bytes(ui.read_bytes().replace(b"fix a.py", LATIN1 + b" \xe2\x82 a.py"))  # 1 byte, then a cut sequence of 2
    transcript = load_transcript(folder / "api_conversation_history.json")
    assert transcript.warnings == [f"ui_messages.json beside it: 3 {NOTE.format('bytes')}"]
    assert counts(transcript) == counts(clean)  # its counts read as before


def test_invalid_bytes_in_the_compaction_beside_a_session_are_said(tmp_path: Path) -> None:
    path = write(tmp_path / "s", FIRST, {"source_prefix_hash": V2, "source_last_message_key": "id:m2"})
    beside = path.with_name(f"{SID}.compaction.json")
    beside.write_bytes(beside.read_bytes().replace(b"renamed fetch_all", b"renamed " + LATIN1))
    assert json.loads(beside.read_bytes().decode("latin-1"))["source_message_count"] == 2
    transcript = load_transcript(path)
    assert transcript.warnings[0] == f"{SID}.compaction.json beside it, Cline's compaction of the session: 1 " \
                                     f"{NOTE.format('byte')}"
    assert transcript.warnings[1].startswith(f"Cline compacted this session ({SID}.compaction.json beside it")
    assert fitted(path) == [5_200]  # used as before
