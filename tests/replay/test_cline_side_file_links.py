"""A file Cline keeps beside a conversation (a task's `ui_messages.json`, the compaction beside a
session of its SDK, `<id>.compaction.json`) that is a link is not followed: Cline writes these files
itself, never a link, so one in their place was put there by someone else, and could lead anywhere
(another task's usage, a file outside the folder). It was followed to any regular file; now its note
says it is a link, to where, and the conversation is replayed without it."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from compact_agent.replay import load_transcript

from .test_cline_sidecar import FIRST, SID, V2, fitted, write
from .test_cline_task_folder import history, started, task, usage_of

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="symlinks")


def test_a_tasks_ui_messages_that_is_a_link_is_not_followed(tmp_path: Path) -> None:
    folder = task(tmp_path, history(), [started(950, -1, 10, 40, writes=2_000),
                                        started(2_500, 1, 5, 8, writes=600, reads=2_000)])
    assert usage_of(folder) == [(2_010, 0, 2_000, 40), (2_605, 2_000, 600, 8)]  # as a file, read
    elsewhere = tmp_path / "elsewhere.json"
    (folder / "ui_messages.json").rename(elsewhere)
    (folder / "ui_messages.json").symlink_to(elsewhere)
    assert usage_of(folder) == [(0, 0, 0, 0), (0, 0, 0, 0)]
    assert load_transcript(folder / "api_conversation_history.json").warnings == [
        f"ui_messages.json beside it is a link (to {elsewhere}), which the analyzer does not follow, not read: its "
        "recorded usage is not used"]


def test_a_link_inside_the_tasks_folder_is_not_followed_either(tmp_path: Path) -> None:
    folder = task(tmp_path, history(), [started(950, -1, 10, 40, writes=2_000)])
    (folder / "ui_messages.json").rename(folder / "copy.json")
    (folder / "ui_messages.json").symlink_to("copy.json")
    assert usage_of(folder) == [(0, 0, 0, 0), (0, 0, 0, 0)]
    assert load_transcript(folder / "api_conversation_history.json").warnings == [
        "ui_messages.json beside it is a link (to copy.json), which the analyzer does not follow, not read: its "
        "recorded usage is not used"]


def test_a_task_folder_reached_through_a_link_is_read(tmp_path: Path) -> None:
    """Only the side file itself is refused as a link: a task's folder linked in is searched as any."""
    folder = task(tmp_path, history(), [started(950, -1, 10, 40, writes=2_000)])
    (tmp_path / "linked").symlink_to(folder)
    assert usage_of(tmp_path / "linked")[0] == (2_010, 0, 2_000, 40)


def test_an_sdk_sessions_compaction_that_is_a_link_is_not_followed(tmp_path: Path) -> None:
    path = write(tmp_path / "s", FIRST, {"source_prefix_hash": V2, "source_last_message_key": "id:m2"})
    assert fitted(path) == [5_200]  # as a file, used: the request after it sent the compacted view
    beside = path.with_name(f"{SID}.compaction.json")
    elsewhere = tmp_path / "elsewhere.json"
    shutil.move(beside, elsewhere)
    beside.symlink_to(elsewhere)
    assert fitted(path) == [5_200, 1_100]
    assert load_transcript(path).warnings == [
        f"{SID}.compaction.json beside it, Cline's compaction of the session, is a link (to {elsewhere}), which the "
        "analyzer does not follow, not read: the sizes it recorded after that compaction are fitted as if there "
        "was none"]
    assert json.loads(elsewhere.read_text())["source_prefix_hash"] == V2  # left as it was
