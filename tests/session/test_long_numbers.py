"""An integer too long for Python to read (over 4,300 digits: `int` from a string refuses it) in a
session file's entry no longer costs the rest of that entry.

`json.loads` raised ValueError for the whole line, and the load skipped it as unreadable: the
model's text and tool call beside the number (a hostile or garbled argument) were gone, the tool's
result was then left out as one whose call was lost, and a run that opened the session set the line
aside out of the file. Now the number is kept as its digits, as text, where the entry reads so (a
tool's arguments or output are any JSON); where only a number fits (a token count) it is left out
and the rest of the entry read. Either is said in one line of the load's warning.
"""

from __future__ import annotations

from pathlib import Path

from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.session.listing import scan
from compact_agent.session.store import SessionStore, load_session_file

BIG = "9" * 5_000


def a_session_with(tmp_path: Path, old: bytes, new: bytes) -> SessionStore:
    """A session of one tool call and its answer, whose call's line has `old` replaced by `new`."""
    s = SessionStore(tmp_path, "s1")
    s.append([ModelRequest(parts=[UserPromptPart("compute it")]),
              ModelResponse(parts=[TextPart("I will compute"),
                                   ToolCallPart("calc", {"n": 12345, "note": "keep me"}, tool_call_id="c1")]),
              ModelRequest(parts=[ToolReturnPart("calc", "7", tool_call_id="c1")]),
              ModelResponse(parts=[TextPart("done")])])
    lines = s.path.read_bytes().splitlines(keepends=True)
    assert old in lines[1]
    lines[1] = lines[1].replace(old, new, 1)
    s.path.write_bytes(b"".join(lines))
    return s


def parts(messages: list) -> list[str]:
    return [f"{type(p).__name__}:{getattr(p, 'content', None) or getattr(p, 'args', None)}"
            for m in messages for p in m.parts]


def test_a_number_too_long_in_a_tool_call_is_kept_as_its_digits_and_the_entry_read(tmp_path: Path) -> None:
    s = a_session_with(tmp_path, b"12345", BIG.encode())
    loaded = load_session_file(s.path)
    assert parts(loaded.messages) == ["UserPromptPart:compute it", "TextPart:I will compute",
                                      f"ToolCallPart:{ {'n': BIG, 'note': 'keep me'} }", "ToolReturnPart:7",
                                      "TextPart:done"]
    assert loaded.warnings == ["s1.jsonl: kept 1 number of over 4,300 digits (too long to read as such) as text, "
                               "digit for digit"]
    assert scan(s.path).messages == 4  # the listing counts it too

    before = s.path.read_bytes()
    s.lock()  # a run that opens it sets unreadable lines aside: this one is no such line
    opened = s.load()
    s.unlock()
    assert s.path.read_bytes() == before and not (tmp_path / "s1" / "set-aside").exists()
    assert len(opened.messages) == 4 and opened.warnings == loaded.warnings


def test_where_only_a_number_fits_it_is_left_out_and_the_rest_of_the_entry_read(tmp_path: Path) -> None:
    s = a_session_with(tmp_path, b'"output_tokens": 0', f'"output_tokens": -{BIG}'.encode())
    loaded = load_session_file(s.path)
    assert parts(loaded.messages)[1:3] == ["TextPart:I will compute",
                                           f"ToolCallPart:{ {'n': 12345, 'note': 'keep me'} }"]
    assert loaded.messages[1].usage.output_tokens == 0
    assert loaded.warnings == ["s1.jsonl: left out 1 number of over 4,300 digits (too long to read) where only a "
                               "number fits"]
