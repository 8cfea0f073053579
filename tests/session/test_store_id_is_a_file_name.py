"""A `SessionStore`'s conversation id names files inside its folder, never a path out of it.

A program that keys its stores by an id it was given (a web request's `?conversation=`) wrote, for
`SessionStore(folder, "../escape")`, the conversation to `folder/../escape.jsonl` and its side files
(spilled tool results, the event log) to `folder/../escape/`: beside the folder, or anywhere the id's
`../` reached. An id that is not text stopped with "unsupported operand type(s) for /: 'PosixPath' and
'int'". Both are refused in one line before anything is made; the terminal agent's own ids (its
`-r ID` checked the same way: agent/run/options.is_plain_id) are untouched."""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_agent.session.store import SessionStore


@pytest.mark.parametrize(("bad", "why"), [
    ("../escape", "holds '/'"), ("a/b", "holds '/'"), ("..\\escape", "holds '\\'"), ("a\0b", "holds a NUL"),
    ("..", "starts with '.'"), (".hidden", "starts with '.'"), ("", "is empty"), ("x" * 250, "is 250 bytes long")])
def test_an_id_that_is_no_file_name_is_refused_before_anything_is_made(tmp_path: Path, bad: str, why: str) -> None:
    folder = tmp_path / "sessions"
    with pytest.raises(ValueError) as caught:
        SessionStore(folder, bad)
    assert str(caught.value) == (f"SessionStore: the conversation id {bad!r} {why}: it names the store's files "
                                 "in its folder, so it must be a plain file name (no '/', '\\' or NUL, not "
                                 "starting with '.', at most 249 bytes)")
    assert list(tmp_path.iterdir()) == []  # no folder made, nothing written beside it


def test_an_id_that_is_not_text_is_named(tmp_path: Path) -> None:
    with pytest.raises(TypeError) as caught:
        SessionStore(tmp_path, 42)  # type: ignore[arg-type]
    assert str(caught.value) == "SessionStore: the conversation id must be a str, not int"


def test_the_terminal_agents_ids_are_taken(tmp_path: Path) -> None:
    store = SessionStore(tmp_path, "20261207-105012-ab12cd")
    assert store.path == tmp_path / "20261207-105012-ab12cd.jsonl"
    assert SessionStore(tmp_path, "conversation-42.v2").dir == tmp_path / "conversation-42.v2"
