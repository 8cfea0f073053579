"""`compact-agent analyze` through the real entry point: JSON, the chart, and one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .test_importers import DATA

SMALL = DATA / "claude-code" / "subagent.jsonl"
requires_small = pytest.mark.skipif(not SMALL.is_file(), reason="shared data not found")


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-c", "from compact_agent.cli import main; main()", "analyze", *args],
                          capture_output=True, text=True, timeout=120, env=env, cwd=cwd)


@requires_small
def test_json_on_a_small_file_is_valid_and_complete():
    out = cli(str(SMALL), "--json", "--window", "40000")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["window"] == 40_000 and data["pricing"] == "deepseek"
    [t] = data["transcripts"]
    assert t["format"] == "claude-code" and t["requests"] == 12
    ours = t["results"][0]
    assert ours["strategy"] == "ours" and ours["over_window"] == 0
    assert t["fit"]["overhead"] > 10_000  # Claude Code's system prompt and tools


@requires_small
def test_plot_writes_an_svg_and_the_table_prints(tmp_path: Path):
    chart = tmp_path / "ctx.svg"
    out = cli(str(SMALL), "--plot", str(chart), "--strategy", "ours", "--strategy", "none", "--pricing", "anthropic")
    assert out.returncode == 0, out.stderr
    assert chart.read_text().startswith("<?xml") and "<polyline" in chart.read_text()
    assert "ours" in out.stdout and "none" in out.stdout and "codex" not in out.stdout
    assert "anthropic prices" in out.stdout


def test_a_bad_path_gives_one_line(tmp_path: Path):
    out = cli(str(tmp_path / "nope.jsonl"))
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "no such file" in out.stderr
    assert "Traceback" not in out.stderr


@requires_small
def test_a_chart_that_cannot_be_written_gives_one_line_naming_the_file(tmp_path: Path):
    chart = tmp_path / "is-a-dir.svg"
    chart.mkdir()  # the folder exists (checked before the replay), the file cannot be written
    out = cli(str(SMALL), "--plot", str(chart), "--strategy", "none")
    assert out.returncode == 1
    assert out.stderr.count("\n") == 1 and str(chart) in out.stderr, out.stderr
    assert "Error" not in out.stderr and "Traceback" not in out.stderr


def test_unknown_strategy_and_pricing_give_one_line(tmp_path: Path):
    f = tmp_path / "x.json"
    f.write_text(json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]))
    for args in (["--strategy", "claude"], ["--pricing", "free"]):
        out = cli(str(f), *args)
        assert out.returncode == 2, out.stderr
        assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr


def test_directories_are_searched_and_other_files_skipped_with_a_note(tmp_path: Path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "README.md").write_text("# not a transcript\n")
    chat = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello there"}]
    (tmp_path / "notes" / "chat.json").write_text(json.dumps(chat))
    out = cli(str(tmp_path), "--json")
    assert out.returncode == 0, out.stderr
    assert len(json.loads(out.stdout)["transcripts"]) == 1
    assert "skipped" in out.stderr and "README.md: not a transcript" in out.stderr


def test_nothing_to_analyze_is_one_line(tmp_path: Path):
    (tmp_path / "a.txt").write_text("hello\n")
    out = cli(str(tmp_path))
    assert out.returncode == 2 and "no transcripts found" in out.stderr
    assert "Traceback" not in out.stderr


def test_a_model_without_a_key_is_one_line(tmp_path: Path):
    f = tmp_path / "x.json"
    f.write_text(json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]))
    env_key = os.environ.pop("DEEPSEEK_API_KEY", None)
    try:
        out = cli(str(f), "--model", "deepseek-chat")
    finally:
        if env_key is not None:
            os.environ["DEEPSEEK_API_KEY"] = env_key
    assert out.returncode == 1 and "DEEPSEEK_API_KEY" in out.stderr
    assert out.stderr.count("\n") == 1


def _chat(n_tools: int) -> list[dict]:
    chat: list[dict] = [{"role": "user", "content": "go"}]
    for i in range(n_tools):
        chat.append({"role": "assistant", "content": f"step {i}", "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]})
        chat.append({"role": "tool", "tool_call_id": f"c{i}", "content": "x" * 400})
    chat.append({"role": "assistant", "content": "done"})
    return chat


def test_totals_prints_only_the_totals_with_whole_relative_titles(tmp_path: Path):
    for name in ("a", "b"):
        (tmp_path / name / "subagents").mkdir(parents=True)
        (tmp_path / name / "subagents" / "agent.json").write_text(json.dumps(_chat(6)))
    full = cli(".", "-s", "ours", "-s", "none", cwd=tmp_path)
    assert full.returncode == 0, full.stderr
    # Same file names in two folders: each table is titled with its whole relative path.
    assert "a/subagents/agent.json" in full.stdout and "b/subagents/agent.json" in full.stdout
    short = cli(".", "-s", "ours", "-s", "none", "--totals", cwd=tmp_path)
    assert short.returncode == 0, short.stderr
    assert "Total over 2 transcripts" in short.stdout and "agent.json" not in short.stdout
    data = json.loads(cli(".", "--totals", "--json", "-s", "ours", cwd=tmp_path).stdout)
    assert data["transcripts"] == 2 and [t["strategy"] for t in data["totals"]] == ["ours"]
    total = data["totals"][0]
    assert set(total["cost_parts"]) == {"hit", "miss", "output", "summary", "notes", "reread"}
    assert {"recall", "line_recall", "edit_ready", "stalls", "reread_requests"} <= set(total)
    assert total["cost"] == pytest.approx(sum(total["cost_parts"].values()), abs=1e-5)


def test_plot_has_a_heading_an_axis_label_a_totals_panel_and_no_empty_panels(tmp_path: Path):
    (tmp_path / "long.json").write_text(json.dumps(_chat(8)))
    (tmp_path / "single.json").write_text(json.dumps([{"role": "user", "content": "hi"},
                                                      {"role": "assistant", "content": "hello"}]))
    chart = tmp_path / "ctx.svg"
    out = cli(str(tmp_path), "--plot", str(chart), "-s", "ours", "-s", "codex", "--json")
    assert out.returncode == 0, out.stderr
    text = chart.read_text()
    assert "Context tokens per request: 2 transcript(s), window 64,000" in text
    assert text.count(">context tokens</text>") == 1  # one drawn panel, its y axis labelled
    assert "long.json" in text and "single.json" not in text and "1 single-request transcript(s) not drawn" in text
    assert ">Totals</text>" in text and ">miss</text>" in text and ">codex</text>" in text
    assert text.count("<polyline") == 2


def test_a_chart_name_that_is_neither_svg_nor_png_is_refused_before_the_replay(tmp_path: Path):
    (tmp_path / "t.json").write_text(json.dumps(_chat(3)))
    out = cli(str(tmp_path), "--plot", str(tmp_path / "chart.txt"))
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert "chart.txt" in out.stderr and ".svg" in out.stderr and not (tmp_path / "chart.txt").exists()
    assert out.stdout == ""  # nothing was replayed


def test_panel_titles_are_relative_to_the_transcripts_folder_and_fit_the_panel(tmp_path: Path):
    long = "a-very-long-project-folder-name-" * 3
    for deep, name in ((tmp_path / "data" / "claude-code" / long / "subagents", "agent-one.json"),
                       (tmp_path / "data" / "codex" / long, "agent-two.json")):
        deep.mkdir(parents=True)
        (deep / name).write_text(json.dumps(_chat(4)))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    chart = tmp_path / "ctx.svg"
    out = cli(str(tmp_path / "data"), "--plot", str(chart), "-s", "ours", cwd=elsewhere)
    assert out.returncode == 0, out.stderr
    from xml.etree import ElementTree

    texts = [t.text or "" for t in ElementTree.parse(chart).getroot().iter("{http://www.w3.org/2000/svg}text")]
    titles = [t for t in texts if t.endswith(("agent-one.json", "agent-two.json"))]
    assert len(titles) == 2 and all(len(t) <= 100 and not t.startswith("..") for t in titles), titles
    assert titles[0] == "claude-code/…/subagents/agent-one.json"  # from the folder given; the middle gave way
    assert titles[1] == "codex/…/agent-two.json"
    heading = texts[0]
    assert heading.startswith("Context tokens per request: 2 transcript(s)") and heading.endswith("data")
