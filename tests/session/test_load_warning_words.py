"""A session file's load warning counts its lines in words: 'skipped 1 line of an unknown kind',
'skipped 2 unreadable lines', never 'line(s)'. A line a newer compact-agent wrote is said once:
one line of a kind this version does not know read 'skipped 1 line(s) of an unknown kind; 1
line(s) were written by a newer compact-agent (read what was understood)', as if there were two."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from compact_agent.session.store import SessionStore, load_session_file


def saved(tmp_path: Path, *extra: dict | bytes) -> Path:
    store = SessionStore(tmp_path, "s1")
    store.append([ModelRequest(parts=[UserPromptPart("question")]), ModelResponse(parts=[TextPart("answer")])])
    last = json.loads(store.path.read_bytes().splitlines()[-1])["id"]
    with store.path.open("ab") as f:
        for i, line in enumerate(extra):
            f.write(line if isinstance(line, bytes) else
                    json.dumps({"id": f"x{i}", "parent": last, "time": "t", **line}).encode() + b"\n")
    return store.path


def warning(path: Path) -> str:
    [said] = load_session_file(path).warnings
    return said.removeprefix(f"{path.name}: ")


FUTURE_MESSAGE = {"v": 99, "kind": "message", "message": {
    "kind": "response", "parts": [{"part_kind": "text", "content": "later"}], "future_field": 1}}


def test_one_line_of_a_newer_kind_is_said_once(tmp_path: Path) -> None:
    path = saved(tmp_path, {"v": 99, "kind": "bookmark"})
    assert warning(path) == "skipped 1 line written by a newer compact-agent, of a kind this version does not know"


def test_newer_lines_read_and_skipped_are_one_statement(tmp_path: Path) -> None:
    path = saved(tmp_path, {"v": 99, "kind": "bookmark"}, FUTURE_MESSAGE)
    assert warning(path) == ("2 lines were written by a newer compact-agent: skipped 1 of a kind this version does "
                             "not know, read the other as far as it is understood")
    assert load_session_file(path).messages[-1].parts[0].content == "later"  # read, as said
    assert warning(saved(tmp_path / "b", FUTURE_MESSAGE)) == \
        "1 line was written by a newer compact-agent: read as far as it is understood"


def test_counts_are_words(tmp_path: Path) -> None:
    path = saved(tmp_path, {"v": 1, "kind": "bookmark"}, b"\x00\xff torn\n", b'{"v": 1, "kind": "mess\n')
    assert warning(path) == "skipped 2 unreadable lines; skipped 1 line of an unknown kind"
    assert warning(saved(tmp_path / "b", b"{not json\n")) == "skipped 1 unreadable line"


def test_empty_replies_of_a_failed_turn_are_no_lost_tool_results(tmp_path: Path) -> None:
    """A model that answered empty, asked again until the turn stopped, leaves replies with no parts
    in the file: they are left out on load without a warning about tool calls (there were none),
    which every later `-c` repeated."""
    store = SessionStore(tmp_path, "s1")
    store.append([ModelRequest(parts=[UserPromptPart("question")]), ModelResponse(parts=[]),
                  ModelRequest(parts=[UserPromptPart("Please return text or call a tool.")]),
                  ModelResponse(parts=[]), ModelRequest(parts=[UserPromptPart("again")]),
                  ModelResponse(parts=[TextPart("answer")])])
    loaded = load_session_file(store.path)
    assert loaded.warnings == []
    assert all(m.parts for m in loaded.messages)


def test_a_lost_tool_result_beside_an_empty_reply_is_still_said(tmp_path: Path) -> None:
    from pydantic_ai.messages import ToolCallPart

    store = SessionStore(tmp_path, "s1")
    store.append([ModelRequest(parts=[UserPromptPart("question")]), ModelResponse(parts=[]),
                  ModelRequest(parts=[UserPromptPart("again")]),
                  ModelResponse(parts=[ToolCallPart("read_file", {"path": "a"}, tool_call_id="c1")])])
    assert warning(store.path).startswith("closed tool calls whose results were lost")


def test_a_result_whose_call_is_gone_is_said_as_such(tmp_path: Path) -> None:
    """A file whose tool call was lost (a hand-edit took its line) kept a result answering nothing:
    the load left it out and said it had closed tool calls whose results were lost, the other way
    round, naming a repair it never made."""
    from pydantic_ai.messages import ToolCallPart, ToolReturnPart

    store = SessionStore(tmp_path, "s1")
    store.append([ModelRequest(parts=[UserPromptPart("question")]),
                  ModelRequest(parts=[ToolReturnPart("read_file", "text", tool_call_id="gone")]),
                  ModelResponse(parts=[TextPart("answer")])])
    assert warning(store.path) == ("left out 1 tool result whose call was lost (a crash or an edit); "
                                   "the conversation goes on")
    both = SessionStore(tmp_path / "b", "s1")
    both.append([ModelRequest(parts=[UserPromptPart("question")]),
                 ModelRequest(parts=[ToolReturnPart("read_file", "text", tool_call_id="gone")]),
                 ModelResponse(parts=[ToolCallPart("read_file", {"path": "a"}, tool_call_id="c1")])])
    assert warning(both.path) == ("closed tool calls whose results were lost and left out 1 tool result whose "
                                  "call was lost (a crash or an edit); the conversation goes on")
