"""Prompt-history entries an earlier version wrote name no session: `sessions --delete` left them,
and a secret pasted into the removed session stayed one up-arrow away. One goes with a session when
it was typed while that session was in use (in_use.py): near one of its moments (its start, its
entries, those of its archives too), or between two of them at most an hour apart. The zone is
not UTC, so that the history's local times and the entries' UTC times must be compared rightly."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from compact_agent.session import in_use, prompt_history, removal
from compact_agent.session.store import SessionStore

A = "20261101-090000-aaaaaa"  # started 09:00 local, 06:00 UTC
B = "20261101-150000-bbbbbb"


@pytest.fixture(autouse=True)
def three_hours_east(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TZ", "XYZ-3")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def write(root: Path, session_id: str, *times: str) -> None:
    clock = iter([utc(t).isoformat() for t in times])
    store = SessionStore(root, session_id, clock=lambda: next(clock))
    for _ in times:
        store.append_meta(x=1)


def typed(history: Path, text: str, local: str, session_id: str | None = None) -> None:
    prompt_history.append(history, text, session_id, now=lambda: datetime.fromisoformat(local))


def test_old_entries_typed_while_the_session_was_in_use_go_with_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    root = home / "projects" / "project-0123456789ab"
    root.mkdir(parents=True)
    write(root, A, "2026-11-01 06:00:10", "2026-11-01 06:40:00", "2026-11-01 06:41:00")
    (root / "compact-history").mkdir()
    (root / f"{A}.jsonl").rename(root / "compact-history" / f"{A}-20261101-064200-000000.jsonl")  # compacted
    write(root, A, "2026-11-02 06:00:00", "2026-11-02 06:00:30")  # resumed the next day
    write(root, B, "2026-11-01 12:00:20", "2026-11-01 12:10:00")
    history = root / prompt_history.NAME
    typed(history, "from before any session", "2026-10-30 10:00:00")
    typed(history, "export TOKEN=hunter2", "2026-11-01 09:00:08")  # A's first line, just before its entry
    typed(history, "/help", "2026-11-01 09:20:00")  # between two of A's entries 40 minutes apart
    typed(history, "while no session was in use", "2026-11-01 11:00:00")  # A's pause of a day
    typed(history, "B's line", "2026-11-01 15:05:00")
    typed(history, "B's tagged line", "2026-11-01 15:06:00", B)
    typed(history, "A's line, resumed", "2026-11-02 08:59:50")  # just before its resumed entry
    typed(history, "A's tagged line", "2026-11-02 09:00:20", A)
    stayed = [b"from before any session", b"while no session was in use", b"B's line", b"B's tagged line"]

    said: list[str] = []
    assert removal.run(root, home, [A], None, said.append, said.append) == 0
    assert said[0].startswith(f"removed session {A}: the session file, 1 archive, "), said
    assert ", 4 prompts in the prompt history (" in said[0], said  # 1 names it, 3 an earlier version wrote
    data = history.read_bytes()
    assert [line[1:] for line in data.splitlines() if line.startswith(b"+")] == stayed
    assert b"hunter2" not in data


def test_a_session_with_no_moment_takes_no_old_entry(tmp_path: Path) -> None:
    history = tmp_path / prompt_history.NAME
    typed(history, "old", "2026-11-01 09:00:08")
    assert in_use.moments(tmp_path, "not-stamped", None) == []
    assert prompt_history.drop_session(history, "not-stamped", typed_while=in_use.typed_while([])) == (0, 0)
    start = datetime.fromisoformat("2026-11-01 09:00:00").timestamp()  # local: what the id says
    assert in_use.moments(tmp_path, A, None) == [start]
    within = in_use.typed_while([start])
    assert within(start + 299) and not within(start + 301) and within(start - 299)
    assert in_use.typed_while([start, start + 3600])(start + 1800)
    assert not in_use.typed_while([start, start + 3601])(start + 1800)
    assert prompt_history.drop_session(history, A, dry=True, typed_while=within)[0] == 1
