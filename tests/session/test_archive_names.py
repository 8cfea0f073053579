"""Archive names sort in the order the archives were written, with plain `ls`; the names earlier
versions wrote (`<id>-<second>.jsonl`, `-2`, … `-10`) are still listed, in the order written."""

from __future__ import annotations

import os
from datetime import datetime, timedelta

from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from compact_agent.session.store import SessionStore
from compact_agent.ui.history_view import all_boundaries

NOON = datetime(2026, 12, 1, 12, 0, 0)


def a_session(tmp_path, sid: str = "s1") -> SessionStore:
    s = SessionStore(tmp_path, sid)
    s.append([ModelRequest(parts=[UserPromptPart("q")]), ModelResponse(parts=[TextPart("a")])])
    return s


def ls(folder) -> list[str]:
    return sorted(os.listdir(folder))  # what `ls` shows (LC_COLLATE=C: byte order)


def test_archives_written_within_one_second_sort_in_the_order_written(tmp_path):
    s = a_session(tmp_path)
    written = [s.archive(NOON).name for _ in range(12)]
    assert len(set(written)) == 12
    assert ls(s.archive_dir) == written
    assert [p.name for p in s.archives()] == written
    assert written[0] == "s1-20261201-120000-000000.jsonl"


def test_a_clock_set_back_still_gives_a_later_name(tmp_path):
    s = a_session(tmp_path)
    first = s.archive(NOON)
    second = s.archive(NOON - timedelta(hours=3))
    assert ls(s.archive_dir) == [first.name, second.name]


def test_old_names_are_listed_in_the_order_written_and_a_new_one_comes_after_them(tmp_path):
    s = a_session(tmp_path)
    s.archive_dir.mkdir(mode=0o700)
    old = ["s1-20261201-115959.jsonl", "s1-20261201-120000.jsonl",
           *(f"s1-20261201-120000-{n}.jsonl" for n in range(2, 12))]
    for name in reversed(old):  # mtimes say the opposite of the order written: names decide
        (s.archive_dir / name).write_text("{}\n")
    (s.archive_dir / "s1-2-20261201-110000-000000.jsonl").write_text("{}\n")  # session "s1-2"'s
    (s.archive_dir / "notes.jsonl").write_text("{}\n")
    assert [p.name for p in s.archives()] == old
    new = s.archive(NOON)  # the same second as the old ones: after them all, in `ls` too
    assert [p.name for p in s.archives()] == [*old, new.name]
    assert ls(s.archive_dir).index(new.name) > max(ls(s.archive_dir).index(n) for n in old)


def test_history_lists_compactions_from_old_and_new_archives_in_the_order_written(tmp_path):
    s = a_session(tmp_path)
    s.archive_dir.mkdir(mode=0o700)
    for n, name in enumerate(["s1-20261201-120000.jsonl", "s1-20261201-120000-2.jsonl",
                              "s1-20261201-120000-10.jsonl"]):
        lines = [f'{{"v": 1, "id": "b{n}", "parent": null, "time": "t", "kind": "boundary", "boundary": '
                 f'{{"trigger": "auto", "strategy": "full", "tokens_before": {n}, "tokens_after": 0, '
                 f'"archive": "a{n}", "time": "2026-12-01T12:00:0{n}"}}}}']
        (s.archive_dir / name).write_text("\n".join(lines) + "\n")
        os.utime(s.archive_dir / name, (10 - n, 10 - n))  # newest first by mtime
    assert [b.tokens_before for b in all_boundaries(s)] == [0, 1, 2]
