"""The session store (session/store.py): a session's JSONL transcript, appended line by line and
loaded back; an archive before a rewrite; corrupt, duplicate and newer lines skipped with a warning;
a torn last line not joined to the next; one process at a time (a lock); sessions listed newest
first; and a session that saved nothing leaves no folder behind, nor its events."""


from __future__ import annotations

import json
import os
import stat

import pytest
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from compact_agent.session.store import SessionLocked, SessionStore, list_sessions, load_session_file


def msgs(n: int) -> list:
    out = []
    for i in range(n):
        out += [ModelRequest(parts=[UserPromptPart(f"q{i}")]), ModelResponse(parts=[TextPart(f"a{i}")])]
    return out


def test_append_load_roundtrip(tmp_path):
    s = SessionStore(tmp_path, "s1")
    s.append(msgs(2))
    s.append(msgs(1))
    loaded = s.load()
    assert [p.content for m in loaded.messages for p in m.parts] == ["q0", "a0", "q1", "a1", "q0", "a0"]
    assert not loaded.warnings
    assert stat.S_IMODE(os.stat(s.path).st_mode) == 0o600


def test_archive_then_rewrite(tmp_path):
    s = SessionStore(tmp_path, "s1")
    s.append(msgs(3))
    before = s.path.read_bytes()
    arch = s.archive()
    assert arch.read_bytes() == before
    assert arch.parent.name == "compact-history" and arch.name.startswith("s1-")
    assert stat.S_IMODE(os.stat(arch.parent).st_mode) == 0o700
    s.rewrite({"trigger": "auto", "strategy": "full", "tokens_before": 10, "tokens_after": 2,
               "archive": str(arch), "time": "t"}, msgs(1))
    loaded = s.load()
    assert len(loaded.messages) == 2
    assert loaded.boundaries[0].archive == str(arch)
    s.append(msgs(1))  # appends after a rewrite continue the new history
    assert len(s.load().messages) == 4
    assert not list(tmp_path.glob(".*.tmp"))


def test_corrupt_duplicate_and_newer_lines_are_skipped_with_warnings(tmp_path):
    s = SessionStore(tmp_path, "s1")
    s.append(msgs(2))
    lines = s.path.read_bytes().splitlines(keepends=True)
    newer = json.dumps({"v": 99, "id": "zz", "kind": "future-thing"}).encode() + b"\n"
    s.path.write_bytes(lines[0] + b"\x00\xff garbage\n" + lines[0] + lines[1] + newer + lines[2] + b'{"v":1,"id":"tr')
    loaded = load_session_file(s.path)
    assert len(loaded.messages) == 3
    joined = " ".join(loaded.warnings)
    assert "unreadable" in joined and "duplicated" in joined and "newer" in joined


def test_append_after_torn_line_starts_a_new_line(tmp_path):
    s = SessionStore(tmp_path, "s1")
    s.append(msgs(1))
    with open(s.path, "ab") as f:
        f.write(b'{"v": 1, "id": "torn", "kind": "mess')
    assert s.load().warnings  # the torn line is skipped with a warning ...
    s.append(msgs(1))
    loaded = s.load()
    assert len(loaded.messages) == 4
    assert not loaded.warnings  # ... and cut off by the next append (it was never a saved entry)
    assert b"torn" not in s.path.read_bytes()


def test_append_after_complete_line_without_newline_keeps_it(tmp_path):
    s = SessionStore(tmp_path, "s1")
    s.append(msgs(1))
    s.path.write_bytes(s.path.read_bytes().rstrip(b"\n"))
    s.append(msgs(1))
    loaded = s.load()
    assert len(loaded.messages) == 4 and not loaded.warnings


def test_second_process_is_locked_out(tmp_path):
    a = SessionStore(tmp_path, "s1")
    a.lock()
    b = SessionStore(tmp_path, "s1")
    with pytest.raises(SessionLocked, match="in use"):
        b.lock()
    a.unlock()
    b.lock()
    b.unlock()


def test_list_sessions_newest_first(tmp_path):
    for name in ("a", "b"):
        SessionStore(tmp_path, name).append(msgs(1))
    os.utime(tmp_path / "a.jsonl", (1, 1))
    assert [p.stem for p in list_sessions(tmp_path)] == ["b", "a"]


def test_a_session_that_saved_nothing_leaves_no_folder_not_even_its_projects(tmp_path):
    """`-p /status` in a new directory left `projects/<dir>/` behind, empty: the project's folder
    goes with the session's own when nothing else is in it, and stays while another session is."""
    root = tmp_path / "projects" / "my-dir"
    empty = SessionStore(root, "s1")
    empty.lock()
    empty.side_dir("tool-results")
    empty.unlock()
    empty.remove_if_unused()
    assert not root.exists() and (tmp_path / "projects").is_dir()
    kept = SessionStore(root, "kept")
    kept.append(msgs(1))
    other = SessionStore(root, "s2")
    other.lock()
    other.unlock()
    other.remove_if_unused()
    assert sorted(p.name for p in root.iterdir()) == ["kept.jsonl"]  # the other session's folder stays
    kept.remove_if_unused()  # it saved a message: nothing of it goes
    assert (root / "kept.jsonl").is_file()


def test_the_events_of_a_session_that_saved_nothing_go_with_its_folder(tmp_path):
    """`-p /mcp` (or a REPL left at once) with MCP servers configured logged their connecting in the
    session's events and saved nothing: the folder stayed, and `sessions` listed it as the leftover
    of a session whose file is gone. The events of a session with a file stay, and so does whatever
    else a session that saved nothing wrote."""
    root = tmp_path / "projects" / "my-dir"
    unsaved = SessionStore(root, "s1")
    unsaved.lock()
    unsaved.event_log.append({"layer": "mcp", "action": "connected"})
    unsaved.unlock()
    unsaved.remove_if_unused()
    assert not root.exists()
    spilled = SessionStore(root, "s2")
    spilled.lock()
    spilled.event_log.append({"layer": "mcp", "action": "connected"})
    (spilled.side_dir("tool-results") / "r1.txt").write_text("output")
    spilled.unlock()
    spilled.remove_if_unused()
    assert sorted(p.name for p in spilled.dir.rglob("*")) == ["r1.txt", "tool-results"]
    saved = SessionStore(root, "s3")
    saved.lock()
    saved.append(msgs(1))
    saved.event_log.append({"layer": "mcp", "action": "connected"})
    saved.unlock()
    saved.remove_if_unused()
    assert [e["action"] for e in saved.event_log.read()] == ["connected"]
