"""A row that sends more requests over the window than ours is marked in the tables (`none*`, with
a note saying why) and `comparable: false` in `--json`: a provider would refuse those requests, so
its cost and recall, printed as they are, do not compare. No figure changes."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

import pytest

from compact_agent.replay.metrics import Metrics
from compact_agent.replay.plot import totals_cells
from compact_agent.replay.report import run_cli

from .test_batch import _chat

NOTE = ("* = more requests over the window than ours: a provider would refuse each of them, so the row's cost and "
        "recall do not compare")


def _run(tmp_path: Path, strategies: list[str], as_json: bool, capsys: pytest.CaptureFixture[str]) -> str:
    code = run_cli([tmp_path], window=8_000, strategies=strategies, pricing="deepseek", as_json=as_json, plot=None,
                   model=None)
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_rows_over_the_window_more_than_ours_are_marked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for n in (4, 40):
        (tmp_path / f"t{n:02d}.json").write_text(json.dumps(_chat(n)))
    got = json.loads(_run(tmp_path, ["ours", "none"], True, capsys))
    tables = [t["results"] for t in got["transcripts"]] + [got["totals"]]
    for rows in tables:
        ours, none = rows
        assert ours["comparable"] is True
        assert none["comparable"] is (none["over_window"] <= ours["over_window"])
    assert got["totals"][1]["comparable"] is False  # the long chat is over 8,000 without compaction
    text = _run(tmp_path, ["ours", "none"], False, capsys)
    lines = text.splitlines()
    assert sum(ln.startswith("none*") for ln in lines) == sum(rows[1]["comparable"] is False for rows in tables) == 2
    assert not any(ln.startswith("ours*") for ln in lines)
    assert NOTE in " ".join(text.split())
    assert got["comparable_against"] == "ours"
    without_ours = json.loads(_run(tmp_path, ["none"], True, capsys))
    assert [r["comparable"] for r in without_ours["totals"]] == [False]  # as the table marks it: none*
    assert without_ours["comparable_against"] == "window"
    alone = " ".join(_run(tmp_path, ["none"], False, capsys).split())  # without ours: marked for any over
    assert "none*" in alone and NOTE not in alone and "* = requests over the window" in alone


def test_without_ours_the_json_says_what_the_table_marks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`-s cline -s none` (no ours): `comparable` was null in every row, where the table marked
    `none*` for its requests over the window and left `cline` plain; a script keeping the rows that
    compare (`if r["comparable"]`) kept none. Now each row says what its mark says, and
    `comparable_against` what it is measured against: ours where ours is shown, else the window."""
    for n in (4, 40):
        (tmp_path / f"t{n:02d}.json").write_text(json.dumps(_chat(n)))
    got = json.loads(_run(tmp_path, ["cline", "none"], True, capsys))
    assert got["comparable_against"] == "window"
    tables = [t["results"] for t in got["transcripts"]] + [got["totals"]]
    for rows in tables:
        assert all(r["comparable"] is (r["over_window"] == 0) for r in rows), rows
    by = {r["strategy"]: r["comparable"] for r in got["totals"]}
    assert by == {"cline": True, "none": False}  # cline compacts; none is over 8,000
    text = _run(tmp_path, ["cline", "none"], False, capsys)
    marked = {ln.split()[0].rstrip("*") for ln in text.splitlines() if ln.split() and ln.split()[0].endswith("*")}
    assert marked == {"none"}
    totals = json.loads(run_json_totals(tmp_path, capsys))
    assert totals["comparable_against"] == "window"
    assert {r["strategy"]: r["comparable"] for r in totals["totals"]} == by


def run_json_totals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    code = run_cli([tmp_path], window=8_000, strategies=["cline", "none"], pricing="deepseek", as_json=True,
                   plot=None, model=None, totals_only=True)
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_the_charts_totals_mark_them_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The .svg's totals showed `none` plain where the terminal's showed `none*`."""
    for n in (4, 40):
        (tmp_path / f"t{n:02d}.json").write_text(json.dumps(_chat(n)))
    chart = tmp_path / "out" / "c.svg"
    chart.parent.mkdir()
    code = run_cli([tmp_path], window=8_000, strategies=["ours", "none"], pricing="deepseek", as_json=False,
                   plot=chart, model=None, totals_only=True)
    assert code == 0, capsys.readouterr().err
    texts = [t.text or "" for t in ElementTree.parse(chart).iter("{http://www.w3.org/2000/svg}text")]
    assert texts.count("none*") == 1 and texts.count("none") == 1 and NOTE in texts  # the legend names it plain
    assert totals_cells(Metrics("none", "t"), frozenset({"none"}))["strategy"] == "none*"  # the .png's too
