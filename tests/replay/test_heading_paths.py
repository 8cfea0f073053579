"""A transcript's heading names it as the command line reached it (the folder the user named, then
the path within), as the skip notes do: a folder named by its absolute path outside the working
directory was headed `../a/data/t.json`, while its notes said `skipped /…/a/data/notes.txt`."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from compact_agent.replay import report

from .test_batch import _chat


def headings(analysis: report.Analysis) -> list[str]:
    c = Console(file=io.StringIO(), width=400, record=True)
    report.print_tables(analysis, c)
    return [line.strip() for line in c.export_text().splitlines() if line.strip().endswith(".json")]


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "a" / "data"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "t.json").write_text(json.dumps(_chat(3)))
    (folder / "notes.txt").write_text("not a transcript\n")
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    return folder


async def test_a_folder_named_by_its_absolute_path_is_headed_by_it(data: Path):
    analysis = await report.analyze([data], window=8_000, strategies=["ours"])
    assert headings(analysis) == [f"{data}/sub/t.json"]
    assert analysis.skipped == [f"skipped {data}/notes.txt: not a transcript"]


async def test_a_folder_named_relatively_is_headed_as_it_was_typed(data: Path):
    analysis = await report.analyze([Path("../a/data")], window=8_000, strategies=["ours"])
    assert headings(analysis) == ["../a/data/sub/t.json"]
    assert analysis.skipped == ["skipped ../a/data/notes.txt: not a transcript"]
    assert report.to_json(analysis)["transcripts"][0]["path"] == "../a/data/sub/t.json"
