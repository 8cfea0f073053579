"""What is neither a file nor a folder among the paths: skipped with a note, as a file that is no
transcript is. A broken link in a folder was left out without a word; a pipe given beside other
paths stopped the whole run with exit 2."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from compact_agent.replay.batch import FindError, find_files

from .test_cli_analyze import cli

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and symlinks")

CHAT = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello there"}]


def folder(tmp_path: Path) -> Path:
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "chat.json").write_text(json.dumps(CHAT))
    (tmp_path / "t" / "gone.jsonl").symlink_to(tmp_path / "moved-away.jsonl")
    os.mkfifo(tmp_path / "t" / "pipe")
    os.mkfifo(tmp_path / "beside")
    return tmp_path / "t"


def test_a_broken_link_and_a_pipe_in_a_folder_are_skipped_with_a_note(tmp_path: Path) -> None:
    files, notes = find_files([folder(tmp_path)])
    assert files == [tmp_path / "t" / "chat.json"]
    assert notes == [f"skipped {tmp_path / 't' / 'gone.jsonl'}: a broken link (to {tmp_path / 'moved-away.jsonl'})",
                     f"skipped {tmp_path / 't' / 'pipe'}: not a regular file or a folder (a pipe or a device: not read)"]


def test_a_pipe_beside_other_paths_is_skipped_and_the_run_goes_on(tmp_path: Path) -> None:
    out = cli("t", "beside", "-s", "ours", "--json", cwd=folder(tmp_path).parent)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert [t["path"] for t in data["transcripts"]] == ["t/chat.json"]
    assert data["skipped"] == ["skipped t/gone.jsonl: a broken link (to " + str(tmp_path / "moved-away.jsonl") + ")",
                               "skipped t/pipe: not a regular file or a folder (a pipe or a device: not read)",
                               "skipped beside: not a regular file or a folder (a pipe or a device: not read)"]
    assert out.stderr.splitlines() == [f"compact-agent: {note}" for note in data["skipped"]]


def test_nothing_but_a_pipe_is_one_line_saying_why(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    out = cli("pipe", cwd=tmp_path)
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert out.stderr.startswith("compact-agent: no transcripts found: pipe: not a regular file or a folder")


def test_a_missing_path_is_still_an_error_and_a_broken_link_says_where_it_led(tmp_path: Path) -> None:
    (tmp_path / "gone.jsonl").symlink_to(tmp_path / "moved-away.jsonl")
    with pytest.raises(FindError, match="no such file or directory: .*gone.jsonl is a broken link"):
        find_files([tmp_path / "gone.jsonl"])
    with pytest.raises(FindError, match="no such file or directory"):
        find_files([tmp_path / "typo.jsonl"])
