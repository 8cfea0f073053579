"""Bytes under a session's name that are no session (random bytes) are said to be no session file,
in one line; only the start of an entry cut off at the end is a line the last run was writing."""

from __future__ import annotations

import random

from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from compact_agent.session.store import SessionStore

TORN_WORDS = "in the middle of writing a line"


def junk(n: int, seed: int, newlines: bool = True) -> bytes:
    rng = random.Random(seed)
    data = bytes(rng.randrange(256) for _ in range(n))
    data = data if newlines else data.replace(b"\n", b"x")
    return data.replace(b'{"', b"x")  # the start of an entry never (it is what a torn line begins with)


def loaded(tmp_path, data: bytes) -> tuple[SessionStore, list[str]]:
    (tmp_path / "s1.jsonl").write_bytes(data)
    s = SessionStore(tmp_path, "s1")
    s.lock()
    try:
        return s, s.load().warnings
    finally:
        s.unlock()


def test_random_bytes_are_not_a_session_file_in_one_line_and_none_is_lost(tmp_path):
    data = junk(3000, 1)
    assert data.count(b"\n") > 3 and not data.endswith(b"\n")
    s, warnings = loaded(tmp_path, data)
    assert len(warnings) == 1, warnings
    assert "s1.jsonl: not a session file: none of its" in warnings[0] and TORN_WORDS not in warnings[0]
    [kept] = s.set_aside
    assert f"were moved to {kept}" in warnings[0]
    assert s.path.read_bytes() + kept.read_bytes() == data  # the end set aside, the rest in place


def test_random_bytes_without_a_newline_are_not_a_session_file(tmp_path):
    data = junk(500, 2, newlines=False)
    s, warnings = loaded(tmp_path, data)
    [kept] = s.set_aside
    assert warnings == [f"s1.jsonl is not a session file: nothing in it can be read; its last {len(data)} bytes "
                        f"were moved to {kept}"]
    assert kept.read_bytes() == data


def test_an_unreadable_end_of_a_session_is_not_called_a_torn_line(tmp_path):
    s = SessionStore(tmp_path, "s1")
    s.append([ModelRequest(parts=[UserPromptPart("hi")]), ModelResponse(parts=[TextPart("hello")])])
    with open(s.path, "ab") as f:
        f.write(b"\x00garbage")
    again, warnings = loaded(tmp_path, s.path.read_bytes())
    [kept] = again.set_aside
    assert warnings == [f"the last line of s1.jsonl is unreadable (8 bytes): they are kept in {kept}"]


def test_a_torn_entry_is_still_a_line_the_last_run_was_writing(tmp_path):
    s = SessionStore(tmp_path, "s1")
    s.append([ModelRequest(parts=[UserPromptPart("hi")]), ModelResponse(parts=[TextPart("hello")])])
    with open(s.path, "ab") as f:
        f.write(b'{"v": 1, "id": "t1", "kind": "mess')
    _, warnings = loaded(tmp_path, s.path.read_bytes())
    assert len(warnings) == 1 and TORN_WORDS in warnings[0], warnings
