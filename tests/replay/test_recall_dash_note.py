"""Recall "–" (nothing measured) is explained under the tables and the chart's totals where a row shows it."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

from compact_agent.replay import report
from compact_agent.replay.plot import write_plot

from .test_cli_analyze import cli
from .test_importer_traps import CODEX_SESSION, write_jsonl

NOTE = "– = not measured: no step used a path, name or id from earlier context"
REDACTED = "(redacted text, replayed as filler, holds none)"


def said(text: str) -> str:
    return " ".join(text.split())


def _chat_that_reads_back() -> list[dict]:
    """A later call names a path an earlier tool result printed: recall is measured."""
    chat: list[dict] = [{"role": "user", "content": "fix it"}]
    for i, args in enumerate(["{}", "{}", json.dumps({"path": "/repo/src/pkg/engine_core.py"})]):
        chat.append({"role": "assistant", "content": f"step {i}", "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": "read", "arguments": args}}]})
        chat.append({"role": "tool", "tool_call_id": f"c{i}", "content": "see /repo/src/pkg/engine_core.py " * (i < 1)
                     + "y" * 500})
    chat.append({"role": "assistant", "content": "done"})
    return chat


def test_recall_dash_is_explained_under_the_tables_only_when_a_row_shows_one(tmp_path: Path) -> None:
    """Every row of the Codex rollouts showed recall '–' with no word on why."""
    (tmp_path / "reads.json").write_text(json.dumps(_chat_that_reads_back()))
    measured = cli("reads.json", "-s", "ours", "-s", "none", cwd=tmp_path, env={"COLUMNS": "80"})
    assert measured.returncode == 0, measured.stderr
    assert measured.stdout.split("\nours", 1)[1].split()[4] == "100.0%", measured.stdout  # recall measured
    assert "not measured" not in measured.stdout

    (tmp_path / "hello.json").write_text(json.dumps([{"role": "user", "content": "hi"},
                                                     {"role": "assistant", "content": "hello"}]))
    for extra in ([], ["--totals"]):
        out = cli(".", "-s", "ours", "-s", "none", *extra, cwd=tmp_path, env={"COLUMNS": "80"})
        assert out.returncode == 0, out.stderr
        if not extra:  # a transcript's rows show '–', the totals not
            assert NOTE in said(out.stdout) and REDACTED not in out.stdout, out.stdout
        else:  # the totals alone show no '–': nothing to explain
            assert "not measured" not in out.stdout


def test_a_redacted_codex_rollout_says_why_nothing_was_measured(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "rollout.jsonl", CODEX_SESSION)
    out = cli("rollout.jsonl", "-s", "ours", cwd=tmp_path, env={"COLUMNS": "80"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\nours", 1)[1].split()[4] == "–", out.stdout
    assert f"{NOTE} {REDACTED}" in said(out.stdout), out.stdout


async def test_the_charts_totals_explain_a_recall_dash(tmp_path: Path) -> None:
    (tmp_path / "hello.json").write_text(json.dumps([{"role": "user", "content": "hi"},
                                                     {"role": "assistant", "content": "hello"},
                                                     {"role": "user", "content": "and?"},
                                                     {"role": "assistant", "content": "that is all"}]))
    analysis = await report.analyze([tmp_path], window=8_000, strategies=["ours", "none"])
    doc = ElementTree.fromstring(write_plot(analysis, tmp_path / "chart.svg").read_text())
    height = float(doc.get("height") or 0)
    texts = doc.findall(".//{http://www.w3.org/2000/svg}text")
    assert f"recall: {NOTE}" in [t.text for t in texts]
    assert all(float(t.get("y") or 0) <= height for t in texts)


def test_the_kept_and_edit_dashes_are_explained_under_the_tables(tmp_path: Path) -> None:
    """'kept' showed '–' (no compaction) and '100%/–/100%' (no file changed before it), and 'edit'
    '–', with the legend saying only what the percentages are."""
    (tmp_path / "hello.json").write_text(json.dumps([{"role": "user", "content": "hi"},
                                                     {"role": "assistant", "content": "hello"}]))
    out = cli("hello.json", "-s", "ours", "-s", "none", cwd=tmp_path, env={"COLUMNS": "200"})
    assert out.returncode == 0, out.stderr
    rows = [line.strip("│ ") for line in out.stdout.splitlines() if line.lstrip("│ ").startswith(("ours", "none"))]
    assert len(rows) == 2 and all(row.split()[-1] == "–" for row in rows), out.stdout  # kept: no compaction
    text = said(out.stdout)
    assert "(– = no compaction; between the slashes, no file changed before one)" in text, out.stdout
    assert "edit = share of edits whose old text was still in the request (– = no edit changed text" in text
