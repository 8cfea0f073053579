"""Control characters in file names reach neither the terminal nor the chart raw: they are shown as
escapes (as ui/visible.py shows them everywhere else), a newline too, and the SVG stays XML. The
JSON keeps each path as it is (its own escaping holds any name)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from compact_agent.replay.report import run_cli

from .test_batch import _chat


def test_control_characters_in_names_are_shown_as_escapes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    evil = tmp_path / "evil\x1b[31mred\nname.json"
    evil.write_text(json.dumps(_chat(3)))
    (tmp_path / "ok.json").write_text(json.dumps(_chat(4)))
    (tmp_path / "bad\x1b]0;TITLE\x07.json").write_text("{}")
    chart = tmp_path / "out" / "c.svg"
    chart.parent.mkdir()
    code = run_cli([tmp_path], window=8_000, strategies=["ours"], pricing="deepseek", as_json=False, plot=chart,
                   model=None)
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "\x1b" not in out + err and "\x07" not in out + err
    assert f"{tmp_path}/evil\\x1b[31mred\\nname.json" in out.splitlines()
    assert err == f"compact-agent: skipped {tmp_path}/bad\\x1b]0;TITLE\\x07.json: not a transcript\n"
    titles = [t.text for t in ET.parse(chart).getroot().iter("{http://www.w3.org/2000/svg}text")]
    assert "evil\\x1b[31mred\\nname.json" in titles
    run_cli([tmp_path], window=8_000, strategies=["ours"], pricing="deepseek", as_json=True, plot=None, model=None)
    assert str(evil) in [t["path"] for t in json.loads(capsys.readouterr().out)["transcripts"]]
