"""`compact-agent analyze` through the real entry point: JSON, the chart, and one-line errors."""

from __future__ import annotations

import io
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes._wire import error_body
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.forked_cli import run_forked
from tests.shared_data import DATA, missing

SMALL = DATA / "claude-code" / "subagent.jsonl"
requires_small = pytest.mark.skipif(not SMALL.is_file(), reason=missing(SMALL))


def cli(*args: str, cwd: Path | None = None, env: dict[str, str | None] | None = None
        ) -> subprocess.CompletedProcess[str]:
    """`compact-agent analyze ARGS` forked from the test process's zygote (tests/forked_cli.py),
    stdin at end of file, stdout and stderr files (not a terminal); `env` adds variables, or removes
    those set to None. The tests of a pipe the reader closes start their own process."""
    env = {k: v for k, v in {**os.environ, "COLUMNS": "200", **(env or {})}.items() if v is not None}
    code, out, err = run_forked(["analyze", *args], env, cwd or Path.cwd(), timeout=120)
    return subprocess.CompletedProcess(["compact-agent", "analyze", *args], code, _text(out), _text(err))


def _text(data: bytes) -> str:
    """As `subprocess.run(text=True)` reads it: decoded, universal newlines."""
    return data.decode().replace("\r\n", "\n").replace("\r", "\n")


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
    chart.mkdir()  # the folder exists, the file cannot be written: both checked before the replay
    out = cli(str(SMALL), "--plot", str(chart), "--strategy", "none")
    assert out.returncode == 2 and out.stdout == ""
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


def _chat(n_tools: int, result_chars: int = 400) -> list[dict]:
    chat: list[dict] = [{"role": "user", "content": "go"}]
    for i in range(n_tools):
        chat.append({"role": "assistant", "content": f"step {i}", "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]})
        chat.append({"role": "tool", "tool_call_id": f"c{i}", "content": "x" * result_chars})
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
    assert "Context tokens per request: 2 transcripts, window 64,000" in text
    assert text.count(">context tokens</text>") == 1  # one drawn panel, its y axis labelled
    assert "long.json" in text and "single.json" not in text and "1 single-request transcript not drawn" in text
    assert ">Totals over 2 transcripts</text>" in text and ">miss</text>" in text and ">codex</text>" in text
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
    assert heading.startswith("Context tokens per request: 2 transcripts,") and heading.endswith("data")


# -- --model: its endpoint and key, and a model that cannot be used ------------------------------------
KEY = "sk-analyze-0123456789abcdef"
NO_KEYS = {"DEEPSEEK_API_KEY": None, "OPENAI_API_KEY": None, "ANTHROPIC_API_KEY": None, "OPENAI_BASE_URL": None}


def _compacting(tmp_path: Path) -> Path:
    """A transcript that codex compacts several times at an 8,000-token window."""
    f = tmp_path / "long.json"
    f.write_text(json.dumps(_chat(30, result_chars=4_000)))
    return f


def _summary(req) -> Reply:
    return Reply.text("<summary>the work so far</summary>")


def test_a_summary_model_that_cannot_be_used_stops_the_analysis_in_one_line(tmp_path: Path):
    """Summary calls that fail (a refused key, an unknown model, no server) used to be counted as
    failed compactions, and the figures printed with exit 0: they would rest on summaries never
    written. The run stops at the first such failure, says why in one line, prints no figures."""
    transcript = _compacting(tmp_path)
    args = (str(transcript), "--window", "8000", "-s", "codex", "--json")
    with FakeOpenAIServer(_summary, api_key="sk-the-right-key-000000") as server:
        # The model reached through the OpenAI SDK's own variables, as before --base-url existed.
        refused = cli(*args, "--model", "fake-model",
                      env={**NO_KEYS, "OPENAI_API_KEY": "sk-a-wrong-key-0000000", "OPENAI_BASE_URL": server.base_url})
        assert len(server.requests) <= 2  # stopped at the first failure, not one per compaction
        unknown = cli(*args, "--model", "no-such-model", "--base-url", server.base_url,
                      "--api-key", "sk-the-right-key-000000", env=NO_KEYS)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    unreachable = cli(*args, "--model", "fake-model", "--base-url", f"http://127.0.0.1:{port}/v1", "--api-key", "k",
                      env=NO_KEYS)
    for out, said in ((refused, "the provider rejected the API key"),
                      (unknown, "HTTP 404: The model `no-such-model` does not exist"),
                      (unreachable, "cannot reach the model endpoint")):
        lines = [line for line in out.stderr.splitlines() if "--api-key is visible" not in line]
        assert len(lines) == 1 and said in lines[0], (said, out.stderr)
        # no figures: with --json, stdout is the line as one object
        assert out.returncode == 1 and json.loads(out.stdout) == {"error": lines[0].removeprefix("compact-agent: ")}
        assert lines[0].startswith("compact-agent: summary calls through --model ")
        assert "Error" not in lines[0] and "Traceback" not in out.stderr


def test_model_base_url_and_api_key_replay_with_a_local_server(tmp_path: Path):
    """`analyze -m deepseek-chat` without DEEPSEEK_API_KEY says to pass --api-key or --base-url:
    analyze takes both, as the main command does, and sends the summaries there with that key."""
    transcript = _compacting(tmp_path)
    with FakeOpenAIServer(_summary, model="deepseek-chat", api_key=KEY) as server:
        out = cli(str(transcript), "--window", "8000", "-s", "codex", "--json", "--model", "deepseek-chat",
                  "--base-url", server.base_url, "--api-key", KEY, env=NO_KEYS)
    assert out.returncode == 0, out.stderr
    [codex] = json.loads(out.stdout)["transcripts"][0]["results"]
    assert codex["compactions"] >= 1 and codex["failed_compactions"] == 0
    assert len(server.requests) == codex["compactions"] and not server.rejected  # each summary, with the key
    assert KEY not in out.stdout + out.stderr


def test_the_api_key_is_never_shown_and_bad_flags_are_one_line(tmp_path: Path):
    transcript = _compacting(tmp_path)

    def quotes_the_key(req) -> Reply:  # a provider error that echoes the key
        return Reply.error(400, error_body(f"key {KEY} may not use this model"))

    with FakeOpenAIServer(quotes_the_key) as server:
        echoed = cli(str(transcript), "--window", "8000", "-s", "codex", "-m", "fake-model",
                     "--base-url", server.base_url, "--api-key", KEY, env=NO_KEYS)
    assert echoed.returncode == 1 and "HTTP 400: key [REDACTED] may not use this model" in echoed.stderr
    assert KEY not in echoed.stdout + echoed.stderr
    for args, said in ((["--base-url", "notaurl", "-m", "m"], "--base-url: 'notaurl' is not an http:// or https://"),
                       (["--base-url", "http://localhost:8000/v1"], "--base-url is for the model that writes"),
                       (["--api-key", "k"], "--api-key is for the model that writes the summaries: add --model"),
                       (["--model", ""], "--model needs a model name")):
        bad = cli(str(transcript), *args, env=NO_KEYS)
        assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and said in bad.stderr, (args, bad.stderr)
        assert bad.stdout == ""
    helped = " ".join(cli("--help").stdout.split())
    assert "--base-url URL" in helped and "--api-key KEY" in helped


# -- output to a file or a pipe ---------------------------------------------------------------------------
def test_a_file_or_a_pipe_gets_80_columns_unless_columns_says_more(tmp_path: Path):
    """docs/analyzer.md: a file or a pipe gets the 80-column table, without the cost's parts (it got
    200 columns); COLUMNS asks for more, --json has every figure."""
    (tmp_path / "t.json").write_text(json.dumps(_chat(12, result_chars=2_000)))
    narrow = cli(str(tmp_path / "t.json"), "--window", "4000", env={"COLUMNS": None})
    assert narrow.returncode == 0, narrow.stderr
    lines = narrow.stdout.splitlines()[1:]  # under the transcript's path, printed whole to be copied
    assert max(len(line) for line in lines) <= 80, narrow.stdout
    header = next(line for line in lines if line.startswith("strategy"))
    assert header.split() == ["strategy", "peak", "over", "compact", "cost", "recall", "stalls", "kept", "u/f/last"]
    assert "hit miss out" not in narrow.stdout and "…" not in narrow.stdout
    wide = cli(str(tmp_path / "t.json"), "--window", "4000", env={"COLUMNS": "200"})
    assert "hit miss out sum notes reread $" in wide.stdout and max(map(len, wide.stdout.splitlines())) > 170


def test_the_80_column_table_holds_the_widest_figures_whole():
    """Failed compactions, a recall of 100.0%, a long strategy name and all-kept retention in one
    row: the 80-column table cut them to `100.…` and `100%/100%/10…`."""
    from rich.console import Console

    from compact_agent.replay import report_table as report
    from compact_agent.replay.metrics import Metrics

    wide = Metrics("seed000-submit", "t", requests=9_999, peak=293_200, over_window=1_153, compactions=536,
                   failed_compactions=16, cost=12.345, refs_needed=10, refs_kept=10, stalls=1_234,
                   retention_users=1.0, retention_files=1.0, retention_last=1.0)
    console = Console(file=io.StringIO(), width=80, record=True)
    console.print(report.table("", [wide], columns=report.columns_for(console, [[wide]])))
    text = console.export_text()
    assert "…" not in text and all(len(line) <= 80 for line in text.splitlines()), text
    for shown in ("seed000-submit", "293.2K", "1153", "536 (16 fail)", "$12.345", "100.0%", "1234", "100%/100%/100%"):
        assert shown in text, (shown, text)


def test_at_every_width_the_table_has_the_most_columns_it_shows_whole():
    """Columns were chosen by the width alone (all from 170, the cost's parts from 110): a compaction
    count with failures in it cut the cost to `$0.7…` at 120 columns, and `req` to `5…` at 170."""
    from rich.console import Console

    from compact_agent.replay import report_table as report
    from compact_agent.replay.metrics import Metrics

    wide = Metrics("seed000-submit", "t", requests=9_999, peak=293_200, over_window=1_153, compactions=536,
                   failed_compactions=16, cost=12.345, refs_needed=10, refs_kept=10, stalls=1_234,
                   retention_users=1.0, retention_files=1.0, retention_last=1.0, rebuild_miss_tokens=374_200,
                   miss_tokens=800_000)
    chosen = set()
    for width in range(80, 261, 5):
        console = Console(file=io.StringIO(), width=width, record=True)
        columns = report.columns_for(console, [[wide]])
        console.print(report.table("", [wide], columns=columns))
        text = console.export_text()
        assert "…" not in text and all(len(line) <= width for line in text.splitlines()), (width, text)
        chosen.add(columns)
    assert chosen == {report.SMALL, report.NARROW, report.COLUMNS}  # each where it fits


# -- a reader that closes the pipe early -----------------------------------------------------------------
def test_a_reader_that_closes_the_pipe_ends_analyze_quietly(tmp_path: Path):
    """`analyze ... | head -3`: a reader that has what it wanted is no failure. The run ends
    without a word, with the status a shell gives any program SIGPIPE ended (141); it used to exit
    1, or 120 with Python's 'Exception ignored ... BrokenPipeError' for --json."""
    (tmp_path / "t.json").write_text(json.dumps(_chat(6)))
    from tests.forked_cli import Piped

    env = {**os.environ, "COLUMNS": "200"}
    for extra in ([], ["--json"]):
        proc = Piped(["analyze", str(tmp_path / "t.json"), "-s", "ours", *extra], env, tmp_path)
        proc.stdout.close()  # the reader is gone before the first line is written
        err = proc.stderr.read()
        proc.stderr.close()
        assert proc.wait(timeout=120) == 141 and err == b"", (extra, err)


def test_a_transcript_that_needed_nothing_earlier_has_no_recall_in_json_as_in_the_table(tmp_path: Path):
    """The table showed `–` and the JSON 1.0 (100%): a script read such rows as perfect memory."""
    (tmp_path / "single.json").write_text(json.dumps([{"role": "user", "content": "hi"},
                                                      {"role": "assistant", "content": "hello"}]))
    table = cli("single.json", "-s", "ours", cwd=tmp_path)
    data = json.loads(cli("single.json", "-s", "ours", "--json", cwd=tmp_path).stdout)
    [row] = data["transcripts"][0]["results"]
    assert table.returncode == 0 and "–" in table.stdout.split("ours", 1)[1].splitlines()[0]
    assert row["refs_needed"] == 0 and row["edits_needed"] == 0
    assert row["recall"] is None and row["line_recall"] is None and row["edit_ready"] is None


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs a shell and /dev/full")
def test_a_closed_stdout_is_one_line_and_a_failure_as_a_full_disk_is(tmp_path: Path):
    """`analyze ... >&-` exited 0 without a word, the figures gone; `> /dev/full` said it could not
    write them and exited 1. Both say so now, the closed one before the replay."""
    (tmp_path / "t.json").write_text(json.dumps(_chat(6)))
    command = [sys.executable, "-c", "from compact_agent.cli import main; main()", "analyze", str(tmp_path / "t.json"),
               "-s", "ours"]
    for extra in ([], ["--json"]):
        closed = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", *command, *extra], capture_output=True, text=True,
                                timeout=120)
        assert (closed.returncode, closed.stderr) == (1, "compact-agent: cannot write the output: standard output "
                                                         "is closed\n"), extra
        full = subprocess.run(["sh", "-c", 'exec "$@" > /dev/full', "sh", *command, *extra], capture_output=True,
                              text=True, timeout=120)
        assert full.returncode == 1 and full.stderr.startswith("compact-agent: cannot write the output: "), extra


def test_rows_and_totals_with_no_measured_recall_show_a_dash_in_the_tables_and_the_chart(tmp_path: Path):
    """The chart's totals panel said 100.0% where the tables say `–` and the JSON null."""
    chat = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"},
            {"role": "user", "content": "and?"}, {"role": "assistant", "content": "that is all"}]
    (tmp_path / "two.json").write_text(json.dumps(chat))
    (tmp_path / "one.json").write_text(json.dumps(chat[:2]))
    tables = cli(".", "-s", "ours", "-s", "none", "--plot", "chart.svg", cwd=tmp_path, env={"COLUMNS": "80"})
    assert tables.returncode == 0, tables.stderr
    rows = [line.split() for line in tables.stdout.splitlines() if line.split()[:1] in (["ours"], ["none"])]
    assert len(rows) == 6 and all(row[5] == "–" for row in rows), tables.stdout  # two transcripts and the total
    chart = (tmp_path / "chart.svg").read_text()
    assert ">–</text>" in chart and "100.0%" not in chart
    totals = cli(".", "-s", "ours", "--totals", "--plot", "totals.svg", cwd=tmp_path)
    assert totals.returncode == 0 and "Total over 2 transcripts" in totals.stdout, totals.stderr
    assert "100.0%" not in (tmp_path / "totals.svg").read_text()
    data = json.loads(cli(".", "-s", "ours", "--totals", "--json", cwd=tmp_path).stdout)
    assert data["totals"][0]["recall"] is None and data["totals"][0]["edit_ready"] is None


def test_files_found_in_a_folder_that_are_plainly_no_transcripts_are_said_in_one_line(tmp_path: Path):
    """A folder of transcripts with a README, a LICENSE and CSV files beside them printed a
    `skipped …: not a transcript` line for each (15 for the shared data). They are summed in one
    line; a file named on the command line, or found with a transcript's name, keeps its own; the
    JSON output's `skipped` still names every one."""
    chat = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello there"}]
    (tmp_path / "chat.json").write_text(json.dumps(chat))
    for name in ("README.md", "LICENSE", "a.csv", "b.csv"):
        (tmp_path / name).write_text("not, a, transcript\n")
    (tmp_path / "other.json").write_text('{"nothing": "here"}')
    named = tmp_path / "named.txt"
    named.write_text("hello\n")
    out = cli(str(tmp_path), str(named), "--json", "--strategy", "none")
    assert out.returncode == 0, out.stderr
    lines = out.stderr.splitlines()
    assert f"compact-agent: skipped {named}: not a transcript" in lines, lines
    assert f"compact-agent: skipped {tmp_path / 'other.json'}: not a transcript" in lines, lines
    assert "compact-agent: skipped 4 files that are not transcripts (LICENSE, README.md, a.csv, …)" in lines, lines
    assert len(lines) == 3, lines
    skipped = json.loads(out.stdout)["skipped"]
    assert len(skipped) == 6 and f"skipped {tmp_path / 'b.csv'}: not a transcript" in skipped, skipped
    for name in ("README.md", "LICENSE"):  # a second folder with the same names (and named.txt): each name said once
        (tmp_path / "0more" / name).parent.mkdir(exist_ok=True)
        (tmp_path / "0more" / name).write_text("text\n")
    out = cli(str(tmp_path), "--json", "--strategy", "none")
    assert "compact-agent: skipped 7 files that are not transcripts (LICENSE, README.md, a.csv, …)" in \
        out.stderr.splitlines(), out.stderr
