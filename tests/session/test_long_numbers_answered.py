"""A reply of the model holding an integer too long for Python to read (over 4,300 digits) is a
reply all the same: `-c` goes on with the session it is in.

`answered` parsed each reply's line with `json.loads`, which raises ValueError for such a number;
the line was taken for unreadable, and a session whose one reply held one (a tool call with a
hostile or garbled argument) counted as never answered, so `-c` passed it over for an older one.
The loader reads the line (the number kept as its digits, tests/session/test_long_numbers.py), and
so does this check now."""

from __future__ import annotations

import os
from pathlib import Path

from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, UserPromptPart

from compact_agent.session.answered import answered, continued
from compact_agent.session.store import SessionStore

BIG = "9" * 5_000


def session(folder: Path, name: str, number: str, mtime: int) -> Path:
    """A session of one prompt and one reply, a tool call whose argument `n` is `number` as written."""
    s = SessionStore(folder, name)
    s.append([ModelRequest(parts=[UserPromptPart("compute it")]),
              ModelResponse(parts=[ToolCallPart("calc", {"n": 12345}, tool_call_id="c1")])])
    text = s.path.read_bytes()
    assert text.count(b"12345") == 1
    s.path.write_bytes(text.replace(b"12345", number.encode()))
    os.utime(s.path, (mtime, mtime))
    return s.path


def test_a_reply_holding_a_number_too_long_to_read_is_an_answer(tmp_path: Path) -> None:
    older = session(tmp_path, "older", "7", 1_000)
    newer = session(tmp_path, "newer", BIG, 2_000)
    assert answered(older) and answered(newer)
    picked = continued([newer, older])
    assert picked.path == newer and picked.passed == []


def test_a_line_that_is_not_json_is_still_no_answer(tmp_path: Path) -> None:
    broken = session(tmp_path, "broken", "12x45", 1_000)  # a garbled number: the line is no JSON
    assert not answered(broken)
