"""Bytes under a session's name that are no session (random bytes, another program's lines) are
never written to: opening the session is refused in one line, and nothing is cut off or set aside
(the end was moved to `set-aside/torn-line-*.bin` and the session appended after the rest). Only the
start of an entry cut off at the end is a line the last run was writing (`torn-line-*.bin`); an
unreadable last line of a session is set aside as `unreadable-last-line-*.bin`."""

from __future__ import annotations

import random

import pytest
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from compact_agent.session.journal import save_prompt_early
from compact_agent.session.not_a_session import NotASessionFile
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


@pytest.mark.parametrize("data", [junk(3000, 1), junk(500, 2, newlines=False),
                                  b'{"role": "user", "content": "another program\'s JSONL"}\n'])
def test_bytes_that_are_no_session_are_refused_and_never_written(tmp_path, data):
    path = tmp_path / "s1.jsonl"
    path.write_bytes(data)
    s = SessionStore(tmp_path, "s1")
    with pytest.raises(NotASessionFile) as refused:
        s.lock()
    assert str(refused.value) == (f"session s1 cannot be opened: {path} is not a session file (no line of it is a "
                                  "session entry); it is left as it is (compact-agent sessions lists the sessions)")
    for write in (lambda: s.append([ModelRequest(parts=[UserPromptPart("hi")])]),
                  lambda: save_prompt_early(tmp_path, "s1", "hi")):
        with pytest.raises(NotASessionFile):
            write()
    assert path.read_bytes() == data and not (tmp_path / "s1" / "set-aside").exists()


def test_a_session_begun_and_torn_at_its_first_line_is_one(tmp_path):
    torn = b'{"v": 1, "id": "t1", "kind": "mess'
    s, warnings = loaded(tmp_path, torn)
    [kept] = s.set_aside
    assert kept.name.startswith("torn-line-") and kept.read_bytes() == torn and TORN_WORDS in warnings[0]


def test_an_unreadable_end_of_a_session_is_not_called_a_torn_line(tmp_path):
    s = SessionStore(tmp_path, "s1")
    s.append([ModelRequest(parts=[UserPromptPart("hi")]), ModelResponse(parts=[TextPart("hello")])])
    with open(s.path, "ab") as f:
        f.write(b"\x00garbage")
    again, warnings = loaded(tmp_path, s.path.read_bytes())
    [kept] = again.set_aside
    assert warnings == [f"the last line of s1.jsonl is unreadable (8 bytes): they are kept in {kept}"]
    assert kept.name.startswith("unreadable-last-line-") and kept.suffix == ".bin"  # not called a torn line


def test_a_torn_entry_is_still_a_line_the_last_run_was_writing(tmp_path):
    s = SessionStore(tmp_path, "s1")
    s.append([ModelRequest(parts=[UserPromptPart("hi")]), ModelResponse(parts=[TextPart("hello")])])
    with open(s.path, "ab") as f:
        f.write(b'{"v": 1, "id": "t1", "kind": "mess')
    _, warnings = loaded(tmp_path, s.path.read_bytes())
    assert len(warnings) == 1 and TORN_WORDS in warnings[0], warnings
