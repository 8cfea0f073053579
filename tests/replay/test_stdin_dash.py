"""`analyze -`: standard input is not read, and the one line says so (it said "no such file or
directory: -", as if a file were missing); a file named `-` is still read as any file."""

from __future__ import annotations

import json
from pathlib import Path

from .test_cli_analyze import cli


def test_a_dash_for_standard_input_is_refused_in_one_line(tmp_path: Path) -> None:
    for args in (["-"], ["-", "--json"], ["-", "--window", "32k"]):
        out = cli(*args, cwd=tmp_path)
        assert out.returncode == 2, out.stderr
        assert out.stderr == ("compact-agent: analyze reads transcript files and folders, not standard input (-): "
                              "save the transcript to a file and name that file\n")
        assert "no such file" not in out.stderr
        if "--json" in args:
            assert "standard input" in json.loads(out.stdout)["error"]


def test_a_file_named_dash_is_read(tmp_path: Path) -> None:
    chat = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello there"}]
    (tmp_path / "-").write_text(json.dumps(chat))
    out = cli("-", "--json", "-s", "none", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert [t["path"] for t in json.loads(out.stdout)["transcripts"]] == ["-"]
