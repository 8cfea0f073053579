"""An unreadable line in the middle of a session file (corrupt JSON, garbled bytes) was skipped and
warned about on every open, for good. The run that opens the session sets it aside once: its bytes
kept beside the session, the file rewritten without it, one line saying where; the next open is
silent. Every other line stays byte for byte."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart

from compact_agent.session.store import SessionStore, load_session_file
from compact_agent.session.unreadable import set_aside_unreadable

BAD = [b'{"v": 1, "id": "x1", "kind": "mess\n', b"\x00\xff garbled \xfe\n", b"[1, 2]\n"]


def texts(messages: list[ModelMessage]) -> list[str]:
    return [p.content for m in messages for p in m.parts
            if isinstance(p, (TextPart, UserPromptPart)) and isinstance(p.content, str)]


def a_session_with_bad_lines(tmp_path: Path) -> tuple[Path, bytes]:
    """A session of two exchanges with unreadable lines between them, a blank line and a line of a
    kind a newer version wrote (kept as they are); what the file should hold once they are gone."""
    s = SessionStore(tmp_path, "s1")
    s.append([ModelRequest(parts=[UserPromptPart("q0")]), ModelResponse(parts=[TextPart("a0")])])
    last = json.loads(s.path.read_bytes().splitlines()[-1])["id"]
    newer = json.dumps({"v": 99, "id": "n1", "parent": last, "time": "t", "kind": "bookmark"}).encode() + b"\n"
    with s.path.open("ab") as f:
        f.write(BAD[0] + b"\n" + BAD[1] + newer + BAD[2])
    s.append([ModelRequest(parts=[UserPromptPart("q1")]), ModelResponse(parts=[TextPart("a1")])])
    whole = s.path.read_bytes()
    clean = whole
    for line in BAD:
        clean = clean.replace(line, b"", 1)
    return s.path, clean


def test_an_unreadable_line_is_set_aside_once_and_the_next_open_is_silent(tmp_path: Path) -> None:
    path, clean = a_session_with_bad_lines(tmp_path)
    before = path.read_bytes()
    assert load_session_file(path).warnings  # read alone, the file warns (and is left as it is)
    assert path.read_bytes() == before

    s = SessionStore(tmp_path, "s1")
    s.lock()
    loaded = s.load()
    s.unlock()
    [kept] = (tmp_path / "s1" / "set-aside").iterdir()
    assert kept.name.startswith("unreadable-lines-") and kept.read_bytes() == b"".join(BAD)
    assert stat.S_IMODE(os.stat(kept).st_mode) == 0o600
    n = sum(map(len, BAD))
    # one line, the path named, no exception's name
    assert loaded.warnings == ["s1.jsonl: skipped 1 line written by a newer compact-agent, of a kind this version "
                               "does not know",
                               f"3 unreadable lines of s1.jsonl ({n} bytes) were taken out of it and kept in {kept}"]
    assert texts(loaded.messages) == ["q0", "a0", "q1", "a1"]
    assert path.read_bytes() == clean  # every other line byte for byte: blank, newer, entries
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]

    again = SessionStore(tmp_path, "s1")
    again.lock()
    reloaded = again.load()
    again.unlock()
    assert reloaded.warnings == ["s1.jsonl: skipped 1 line written by a newer compact-agent, of a kind this "
                                 "version does not know"]  # kept for a newer version to read
    assert list((tmp_path / "s1" / "set-aside").iterdir()) == [kept]
    assert texts(reloaded.messages) == ["q0", "a0", "q1", "a1"]


def test_a_session_read_without_its_lock_is_left_as_it_is(tmp_path: Path) -> None:
    path, _ = a_session_with_bad_lines(tmp_path)
    before = path.read_bytes()
    loaded = SessionStore(tmp_path, "s1").load()  # another process's look (a listing, analyze)
    assert any("skipped 3 unreadable lines" in w for w in loaded.warnings), loaded.warnings
    assert path.read_bytes() == before and not (tmp_path / "s1" / "set-aside").exists()


def test_a_line_over_the_cap_is_set_aside_whole_and_a_clean_file_is_not_touched(tmp_path: Path) -> None:
    s = SessionStore(tmp_path, "s1")
    s.append([ModelRequest(parts=[UserPromptPart("q0")]), ModelResponse(parts=[TextPart("a0")])])
    clean = s.path.read_bytes()
    stamp = os.stat(s.path).st_mtime_ns
    assert set_aside_unreadable(s.path, tmp_path / "s1", cap=1 << 20) is None
    assert s.path.read_bytes() == clean and os.stat(s.path).st_mtime_ns == stamp

    junk = b"x" * 5000 + b"\n"
    with s.path.open("ab") as f:
        f.write(junk)
    s.append([ModelRequest(parts=[UserPromptPart("q1")]), ModelResponse(parts=[TextPart("a1")])])
    said = set_aside_unreadable(s.path, tmp_path / "s1", cap=1000)
    [kept] = (tmp_path / "s1" / "set-aside").iterdir()
    assert said == f"1 unreadable line of s1.jsonl (5001 bytes) was taken out of it and kept in {kept}"
    assert kept.read_bytes() == junk and junk not in s.path.read_bytes()
    assert texts(load_session_file(s.path).messages) == ["q0", "a0", "q1", "a1"]
    assert load_session_file(s.path).warnings == []


def test_a_file_of_which_no_line_is_an_entry_is_not_rewritten(tmp_path: Path) -> None:
    path = tmp_path / "s1.jsonl"
    path.write_bytes(b'{"v": 1, "kind": "mess\n{"v": 1, "id\n')
    assert set_aside_unreadable(path, tmp_path / "s1") is None
    assert path.read_bytes() == b'{"v": 1, "kind": "mess\n{"v": 1, "id\n'


def test_a_line_of_json_that_holds_no_message_is_set_aside_and_not_counted(tmp_path: Path) -> None:
    """Valid JSON whose message is none warned 'skipped 1 unreadable line' on every open, never set
    aside, and the sessions list counted it: 5 messages where /resume read 4."""
    from compact_agent.session.listing import counted, scan

    s = SessionStore(tmp_path, "s1")
    s.append([ModelRequest(parts=[UserPromptPart("q0")]), ModelResponse(parts=[TextPart("a0")])])
    last = json.loads(s.path.read_bytes().splitlines()[-1])["id"]
    hollow = json.dumps({"v": 1, "id": "m9", "parent": last, "time": "t", "kind": "message",
                         "message": {"kind": "request", "parts": "none"}}).encode() + b"\n"
    with s.path.open("ab") as f:
        f.write(hollow)
    s.append([ModelRequest(parts=[UserPromptPart("q1")]), ModelResponse(parts=[TextPart("a1")])])
    assert scan(s.path).shown == counted(load_session_file(s.path).messages) == 4

    first = SessionStore(tmp_path, "s1")
    first.lock()
    loaded = first.load()
    first.unlock()
    [kept] = (tmp_path / "s1" / "set-aside").iterdir()
    assert kept.read_bytes() == hollow
    assert loaded.warnings == [f"1 unreadable line of s1.jsonl ({len(hollow)} bytes) was taken out of it and kept in "
                               f"{kept}"]
    again = SessionStore(tmp_path, "s1")
    again.lock()
    assert again.load().warnings == []
    again.unlock()
    assert texts(load_session_file(s.path).messages) == ["q0", "a0", "q1", "a1"] and scan(s.path).shown == 4
