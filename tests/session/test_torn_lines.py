"""A line torn by a crash (the process died mid-append) is never silently dropped: its bytes are set
aside beside the session, fsynced, before the file is cut back, and the user is told where."""

from __future__ import annotations

import os
import stat

from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from compact_agent.session.store import SessionStore

TORN = b'{"v": 1, "id": "torn1", "kind": "message", "message": {"parts": [{"content": "remember PELICAN'


def msgs(*texts: str) -> list:
    out: list = []
    for t in texts:
        out += [ModelRequest(parts=[UserPromptPart(t)]), ModelResponse(parts=[TextPart(f"re {t}")])]
    return out


def a_session_with_a_torn_line(tmp_path) -> SessionStore:
    s = SessionStore(tmp_path, "s1")
    s.append(msgs("q0"))
    with open(s.path, "ab") as f:
        f.write(TORN)  # what a kill in the middle of an append leaves
    return s


def holding(tmp_path) -> list:
    return sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file() and TORN in p.read_bytes())


def test_resuming_sets_the_torn_bytes_aside_and_says_where(tmp_path):
    a_session_with_a_torn_line(tmp_path)
    s = SessionStore(tmp_path, "s1")
    s.lock()
    loaded = s.load()
    assert len(loaded.messages) == 2
    [kept] = s.set_aside
    assert kept.read_bytes() == TORN and kept.parent == tmp_path / "s1" / "set-aside"
    assert stat.S_IMODE(os.stat(kept).st_mode) == 0o600
    assert loaded.warnings == [f"the last run ended in the middle of writing a line of s1.jsonl ({len(TORN)} bytes, "
                               f"unreadable): they are kept in {kept}"]
    assert TORN not in s.path.read_bytes() and s.path.read_bytes().endswith(b"\n")
    # Appends, the archive and the rewrite after it: the bytes stay where they were set aside.
    s.append(msgs("q1"))
    arch = s.archive()
    s.rewrite({"trigger": "auto", "strategy": "full", "tokens_before": 9, "tokens_after": 1, "archive": str(arch),
               "time": "t"}, msgs("summary"))
    assert holding(tmp_path) == [kept.relative_to(tmp_path)]
    s.unlock()
    again = SessionStore(tmp_path, "s1")
    again.lock()
    assert not again.load().warnings  # told once
    again.unlock()


def test_an_append_without_a_load_sets_the_torn_bytes_aside_before_cutting_them(tmp_path):
    s = a_session_with_a_torn_line(tmp_path)
    s.append(msgs("q1"))
    assert holding(tmp_path) == [s.set_aside[0].relative_to(tmp_path)]
    loaded = s.load()
    assert [m.parts[0].content for m in loaded.messages] == ["q0", "re q0", "q1", "re q1"] and not loaded.warnings


def test_an_archive_copies_the_torn_line_and_a_rewrite_sets_it_aside(tmp_path):
    s = a_session_with_a_torn_line(tmp_path)  # not loaded under the lock: the file still ends torn
    arch = s.archive()
    assert arch.read_bytes().endswith(TORN)
    s.rewrite({"trigger": "manual", "strategy": "full", "tokens_before": 9, "tokens_after": 1, "archive": str(arch),
               "time": "t"}, msgs("summary"))
    assert TORN not in s.path.read_bytes()
    assert holding(tmp_path) == sorted([arch.relative_to(tmp_path), s.set_aside[0].relative_to(tmp_path)])


def test_a_complete_last_entry_without_its_newline_is_kept_in_place(tmp_path):
    s = SessionStore(tmp_path, "s1")
    s.append(msgs("q0"))
    s.path.write_bytes(s.path.read_bytes().rstrip(b"\n"))
    s.lock()
    assert not s.load().warnings and not s.set_aside
    s.append(msgs("q1"))
    assert len(s.load().messages) == 4 and not s.set_aside
    s.unlock()
