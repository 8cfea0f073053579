"""`analyze --plot FILE` where no chart can be written is refused before the replay, not after it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from .test_cli_analyze import cli


def _chat() -> list[dict]:
    return [{"role": "user", "content": "read src/app/main.py"}, {"role": "assistant", "content": "done"},
            {"role": "user", "content": "and src/app/util.py"}, {"role": "assistant", "content": "done too"}]


@pytest.mark.parametrize("make", ["folder", "pipe"])
def test_a_chart_name_that_is_no_file_is_refused_before_the_replay(tmp_path: Path, make: str):
    """The chart was written after the replay, before the tables: a name that could not be written
    (a folder, a read-only place) lost the whole analysis, minutes of it, to one line and exit
    status 1, and a pipe of that name left the run waiting for ever for a reader."""
    (tmp_path / "t.json").write_text(json.dumps(_chat()))
    chart = tmp_path / "chart.svg"
    chart.mkdir() if make == "folder" else os.mkfifo(chart)
    out = cli("t.json", "--plot", "chart.svg", cwd=tmp_path)
    assert out.returncode == 2 and out.stdout == "", (out.stdout, out.stderr)
    assert out.stderr == "compact-agent: --plot chart.svg: it names something that is not a file\n"


def test_a_chart_that_can_be_written_leaves_no_file_behind_when_the_run_is_refused(tmp_path: Path):
    (tmp_path / "t.json").write_text(json.dumps(_chat()))
    out = cli("t.json", "--plot", "chart.svg", "-s", "bogus", cwd=tmp_path)
    assert out.returncode == 2 and not (tmp_path / "chart.svg").exists()
    (tmp_path / "old.svg").write_text("<svg/>")  # an earlier chart, opened to see that it can be written
    out = cli("t.json", "--plot", "old.svg", "-s", "ours", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "old.svg").read_text().startswith("<?xml") and "chart written to old.svg" in out.stdout
