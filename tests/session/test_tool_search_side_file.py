"""A session's side folder holding only the tools `tool_search` found (`tool_search.json`, kept with
the session since 7bdb43fd), or only what the REPL's last turn said the next request frees
(`foretold.json`), is what is left of that session once its file is gone, as one holding only its
plan (`todos.json`) is: `sessions --delete-older-than` and `--delete ID` can name it."""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_agent.session.orphans import is_side_folder, orphans
from compact_agent.ui.session_feed import FORETOLD_FILE


@pytest.mark.parametrize("name", ["tool_search.json", FORETOLD_FILE])
def test_a_side_folder_of_one_side_file_alone_is_a_sessions(tmp_path: Path, name: str) -> None:
    side = tmp_path / "20261206-1200-abcd1234"
    side.mkdir()
    (side / name).write_text('{"found": ["db_query"]}\n')
    assert is_side_folder(side)
    assert orphans(tmp_path) == ["20261206-1200-abcd1234"]
    (tmp_path / "20261206-1200-abcd1234.jsonl").write_text("")
    assert orphans(tmp_path) == []  # its session is there: nothing is left over


def test_a_folder_of_other_files_is_not_a_sessions(tmp_path: Path) -> None:
    other = tmp_path / "photos"
    other.mkdir()
    (other / "search.json").write_text("{}\n")
    assert not is_side_folder(other) and orphans(tmp_path) == []
