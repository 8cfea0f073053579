"""A file named on the command line that cannot be read is skipped with one line, as inside a
folder, and the other files' figures are kept: the command line library refused the whole run
("invalid value for 'PATH...': path ... is not readable"), and a file under a folder that cannot be
searched ended it with "could not use ...", exit status 1."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from compact_agent.cli import app
from compact_agent.replay import batch, importers
from compact_agent.replay.finding import find_files

from .test_batch import _chat


def test_an_unreadable_file_named_is_skipped_and_the_others_replayed(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    ok, locked = tmp_path / "ok.json", tmp_path / "locked.json"
    for f in (ok, locked):
        f.write_text(json.dumps(_chat(3)))
    real_access, real_load = os.access, batch.load_transcript

    def access(path: object, mode: int, *a: object, **k: object) -> bool:  # as for a user without read permission
        return False if Path(str(path)) == locked else real_access(path, mode, *a, **k)  # type: ignore[arg-type]

    def load(path: Path) -> importers.Transcript:  # root reads any file: what opening it gives anyone else
        if path == locked:
            raise importers._cannot_read(path, PermissionError(13, "Permission denied", str(path)))
        return real_load(path)

    monkeypatch.setattr(os, "access", access)
    monkeypatch.setattr(batch, "load_transcript", load)
    got = CliRunner().invoke(app, ["analyze", str(locked), str(ok), "--json", "-s", "ours", "--window", "8k"])
    assert got.exit_code == 0, got.output
    out = json.loads(got.stdout)
    assert [t["path"] for t in out["transcripts"]] == [str(ok)]
    assert out["skipped"] == [f"skipped {locked}: Permission denied"]
    alone = CliRunner().invoke(app, ["analyze", str(locked), "-s", "ours"])
    assert alone.exit_code == 2 and alone.stderr == f"compact-agent: no transcripts found: {locked}: Permission denied\n"


def test_a_file_under_a_folder_that_cannot_be_searched_is_skipped(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    ok, hidden = tmp_path / "ok.json", tmp_path / "locked" / "x.json"
    ok.write_text("{}")
    real_stat = Path.stat

    def stat(self: Path, *a: object, **k: object) -> os.stat_result:
        if self == hidden:
            raise PermissionError(13, "Permission denied", str(self))
        return real_stat(self, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "stat", stat)
    found = find_files([hidden, ok])
    assert found.files == [ok] and found.notes == [f"skipped {hidden}: Permission denied"]
