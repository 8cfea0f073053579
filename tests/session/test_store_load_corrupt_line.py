"""`SessionStore.load_messages()`, the library's JSONL store, skipped a line in the middle of its file
that could not be read (overwritten with garbage, or valid JSON that holds no message) without a word:
the history came back without the message, and a program, which gets none of the warnings the terminal
agent shows on resume, never knew. It still returns the history as the agent resumes it (the line
skipped, a tool call whose result it held closed as interrupted, so every request stays a valid
conversation), and now names the file, the line's number and what is wrong with it, then the load's own
warning (the agent's line), in `store.warnings` and on the `compact_agent.session` logger. A last line
torn by a crash mid-append is expected, and stays unsaid, as before."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.context import ContextManager
from compact_agent.session.store import SessionStore

# Line 3 of the file saves the tool's result.
HISTORY: list[ModelMessage] = [
    ModelRequest(parts=[UserPromptPart("read a")]),
    ModelResponse(parts=[ToolCallPart("read_file", {"path": "a"}, tool_call_id="c1")]),
    ModelRequest(parts=[ToolReturnPart("read_file", "the text of a", tool_call_id="c1")]),
    ModelResponse(parts=[TextPart("a says hello")]),
    ModelRequest(parts=[UserPromptPart("thanks")]),
    ModelResponse(parts=[TextPart("you are welcome")]),
]
REPAIRED = "s1.jsonl: skipped 1 unreadable line; closed tool calls whose results were lost (a crash or an edit); " \
    "the conversation goes on"


class Said(logging.Handler):
    """What the store logs, one line each: kept on its own logger, since a run of the terminal
    agent in this process may have stopped `compact_agent` from propagating to pytest's handler."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.levelname} {record.getMessage()}")


@pytest.fixture
def said() -> Iterator[list[str]]:
    logger, handler = logging.getLogger("compact_agent.session"), Said()
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.WARNING)
    try:
        yield handler.lines
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def saved(tmp_path: Path, replace: dict[int, bytes] | None = None, tail: bytes = b"") -> Path:
    """The session file of HISTORY, its lines numbered from 1 in `replace` overwritten, `tail` after it."""
    store = SessionStore(tmp_path, "s1")
    store.append(HISTORY)
    lines = store.path.read_bytes().splitlines(keepends=True)
    for n, line in (replace or {}).items():
        lines[n - 1] = line
    store.path.write_bytes(b"".join(lines) + tail)
    return store.path


def contents(messages: list[ModelMessage]) -> list[object]:
    return [getattr(p, "content", getattr(p, "tool_call_id", None)) for m in messages for p in m.parts]


def test_a_line_overwritten_in_the_middle_is_named_by_number_and_the_history_stays_valid(
        tmp_path: Path, said: list[str]) -> None:
    path = saved(tmp_path, {3: b"\x00\x00 garbage where a line was \x00\n"})
    before = path.read_bytes()
    store = SessionStore(tmp_path, "s1")

    messages = store.load_messages()

    first = f"line 3 of {path} cannot be read (not UTF-8 text) and was skipped: the history is returned without it"
    assert store.warnings == [first, REPAIRED]
    assert said == [f"WARNING {first}", f"WARNING {REPAIRED}"]
    # as the agent resumes it: the call whose result was lost closed, so a provider takes the history
    assert len(messages) == 6
    [closed] = messages[2].parts
    assert isinstance(closed, ToolReturnPart) and closed.tool_call_id == "c1" and closed.outcome == "interrupted"
    assert contents(messages)[3:] == ["a says hello", "thanks", "you are welcome"]
    assert path.read_bytes() == before  # without the lock nothing is moved
    assert store.load_messages() == messages and len(said) == 2  # the same load: said once


def test_json_that_holds_no_message_is_named_with_what_is_wrong(tmp_path: Path, said: list[str]) -> None:
    entry = b'{"v": 1, "id": "x9", "parent": null, "time": "t", "kind": "message", "message": {"kind": "note"}}\n'
    path = saved(tmp_path, {5: entry, 6: b"{not json\n"})
    store = SessionStore(tmp_path, "s1")

    messages = store.load_messages()

    first = (f"lines 5 (a message entry that holds no message this version reads) and 6 (not JSON) of {path} "
             "cannot be read and were skipped: the history is returned without them")
    assert store.warnings == [first, "s1.jsonl: skipped 2 unreadable lines"]
    assert said == [f"WARNING {w}" for w in store.warnings]
    assert contents(messages) == ["read a", "c1", "the text of a", "a says hello"]


def test_many_lines_are_counted_past_the_fifth(tmp_path: Path, said: list[str]) -> None:
    path = saved(tmp_path, {n: b"[]\n" for n in range(1, 7)}, tail=b"[]\n")
    store = SessionStore(tmp_path, "s1")
    assert store.load_messages() == []
    why = "(JSON, but not an entry)"
    assert store.warnings[0] == (f"lines 1 {why}, 2 {why}, 3 {why}, 4 {why}, 5 {why} and 2 more of {path} cannot be "
                                 "read and were skipped: the history is returned without them")


def test_a_store_holding_the_lock_names_the_line_it_set_aside_and_the_next_load_is_silent(
        tmp_path: Path, said: list[str]) -> None:
    bad = b"garbage where a line was\n"
    path = saved(tmp_path, {3: bad})
    store = SessionStore(tmp_path, "s1")
    store.lock()
    try:
        messages = store.load_messages()
    finally:
        store.unlock()

    [kept] = (tmp_path / "s1" / "set-aside").iterdir()
    assert kept.read_bytes() == bad
    assert store.warnings == [
        f"line 3 of {path} cannot be read (not JSON) and was skipped: the history is returned without it",
        "s1.jsonl: closed tool calls whose results were lost (a crash or an edit); the conversation goes on",
        f"1 unreadable line of s1.jsonl ({len(bad)} bytes) was taken out of it and kept in {kept}"]
    assert said == [f"WARNING {w}" for w in store.warnings]
    assert len(messages) == 6

    again = SessionStore(tmp_path, "s1")
    again.lock()
    try:
        assert again.load_messages() == messages
    finally:
        again.unlock()
    assert again.warnings == [] and len(said) == 3  # the line is gone from the file: nothing skipped


def test_a_torn_last_line_is_expected_and_stays_unsaid(tmp_path: Path, said: list[str]) -> None:
    """A crash mid-append leaves the last line without its newline: the history is returned without
    that message, as before, and nothing is said (a store holding the lock sets its bytes aside)."""
    path = saved(tmp_path)
    whole = path.read_bytes()
    path.write_bytes(whole[:-40])  # the last message's line cut off
    torn = path.read_bytes()

    store = SessionStore(tmp_path, "s1")
    assert contents(store.load_messages()) == ["read a", "c1", "the text of a", "a says hello", "thanks"]
    assert store.warnings == [] and said == []
    assert path.read_bytes() == torn

    locked = SessionStore(tmp_path, "s1")
    locked.lock()
    try:
        assert len(locked.load_messages()) == 5
    finally:
        locked.unlock()
    assert locked.warnings == [] and said == []
    [kept] = (tmp_path / "s1" / "set-aside").iterdir()
    assert kept.name.startswith("torn-line-") and torn.endswith(kept.read_bytes())


def test_a_torn_last_line_after_a_corrupt_one_leaves_only_the_corrupt_one_named(
        tmp_path: Path, said: list[str]) -> None:
    path = saved(tmp_path, {4: b"}{\n"}, tail=b'{"v": 1, "id": "t1", "kind": "mess')
    store = SessionStore(tmp_path, "s1")
    store.load_messages()
    assert store.warnings[0] == (f"line 4 of {path} cannot be read (not JSON) and was skipped: the history is "
                                 "returned without it")


def test_a_context_manager_reading_the_store_says_it_too(tmp_path: Path, said: list[str]) -> None:
    """A program that lets a ContextManager read the store (`resume()` without a history, as its
    first request does) is told the same, though it never called load_messages() itself."""
    path = saved(tmp_path, {3: b"garbage where a line was\n"})
    store = SessionStore(tmp_path, "s1")
    ContextManager(window=64_000, store=store).resume()
    assert said == [f"WARNING line 3 of {path} cannot be read (not JSON) and was skipped: the history is returned "
                    "without it", f"WARNING {REPAIRED}"]
