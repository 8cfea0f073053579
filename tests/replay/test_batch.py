"""Replaying many transcripts: the parent keeps figures, not messages; the progress bar shows on a terminal."""

from __future__ import annotations

import io
import json
from pathlib import Path

from compact_agent.replay import batch, finding, report


def _chat(n: int) -> list[dict]:
    chat: list[dict] = [{"role": "user", "content": f"task with {n} steps"}]
    for i in range(n):
        chat.append({"role": "assistant", "content": f"step {i}", "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]})
        chat.append({"role": "tool", "tool_call_id": f"c{i}", "content": "y" * 2_000})
    chat.append({"role": "assistant", "content": "done"})
    return chat


async def test_results_keep_the_files_order_and_no_messages(tmp_path: Path):
    for n in (3, 12, 6):
        (tmp_path / f"t{n:02d}.json").write_text(json.dumps(_chat(n)))
    (tmp_path / "notes.txt").write_text("not a transcript\n")
    for workers in (1, 2):
        files = finding.find_files([tmp_path]).files
        results = await batch.replay_files(files, ["ours", "none"], window=8_000, pricing="deepseek",
                                           workers=workers)
        runs = [r for r in results if not isinstance(r, batch.Skipped)]
        assert [r.transcript.source.name for r in runs] == ["t03.json", "t06.json", "t12.json"]
        assert [r.points for r in runs] == [4, 7, 13]
        assert all(r.transcript.messages == [] for r in runs)  # only figures come back
        assert [r for r in results if isinstance(r, batch.Skipped)] == [
            batch.Skipped(f"skipped {tmp_path / 'notes.txt'}: not a transcript")]
    analysis = await report.analyze([tmp_path], window=8_000, strategies=["ours"])
    assert len(analysis.runs) == 3 and analysis.totals()[0].requests == 4 + 7 + 13


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_shows_only_on_a_terminal_and_after_a_few_seconds():
    now = [0.0]
    out = Tty()
    p = batch.Progress(5, clock=lambda: now[0], stream=out)
    p.advance()
    assert p.bar is None  # a quick run shows nothing
    now[0] = batch.PROGRESS_AFTER_S + 1
    p.advance()
    assert p.bar is not None and p.done == 2
    assert p.bar.tasks[0].completed == 2 and p.bar.tasks[0].fields["elapsed"] == "0:03 elapsed"
    p.close()
    quiet = batch.Progress(5, clock=lambda: now[0] + 100, stream=io.StringIO())
    quiet.advance()
    assert quiet.bar is None and not quiet.enabled


def test_progress_counts_files_and_says_how_many_were_skipped():
    now = [0.0]
    p = batch.Progress(4, clock=lambda: now[0], stream=Tty())
    now[0] = batch.PROGRESS_AFTER_S + 1
    p.advance()
    p.advance(skipped=True)
    task = p.bar.tasks[0]
    assert (task.completed, task.total) == (2, 4)  # files, not transcripts: a skipped file counts as done
    assert task.fields["skipped"] == "1 skipped · "
    p.close()


async def test_the_legend_explains_only_the_columns_the_table_shows(tmp_path: Path):
    from rich.console import Console

    (tmp_path / "t.json").write_text(json.dumps(_chat(6)))
    analysis = await report.analyze([tmp_path], window=8_000, strategies=["ours"])

    def legend(width: int) -> str:
        c = Console(file=io.StringIO(), width=width, record=True)
        report.print_tables(analysis, c)
        return " ".join(c.export_text().split("window 8,000 tokens", 1)[1].split())  # wrapped anywhere

    narrow, wide = legend(120), legend(200)
    for dropped in ("side =", "rebuild miss =", "edit =", "freed:"):  # columns of the wide table only
        assert dropped not in narrow and dropped in wide, dropped
    for kept in ("over =", "recall =", "stalls =", "kept ="):
        assert kept in narrow and kept in wide, kept


async def test_the_table_fits_80_columns_with_its_headers_whole(tmp_path: Path):
    from rich.console import Console

    (tmp_path / "t.json").write_text(json.dumps(_chat(6)))
    analysis = await report.analyze([tmp_path], window=8_000, strategies=["ours", "seed000-submit", "anthropic-clear"])
    c = Console(file=io.StringIO(), width=80, record=True)  # `make demo > file`: not a terminal, 80 columns
    report.print_tables(analysis, c)
    lines = c.export_text().splitlines()
    # The transcript's path is printed whole, to be copied, however deep the test's folder is.
    assert lines[0] == report.label(tmp_path / "t.json")
    assert all(len(line) <= 80 for line in lines[1:]), [line for line in lines if len(line) > 80]
    header = next(line for line in lines if "strategy" in line)
    for name in ("strategy", "peak", "over", "compact", "cost", "recall", "stalls", "kept u/f/last"):
        assert name in header, (name, header)
    assert "…" not in "\n".join(lines[:lines.index(header) + 6])  # no header or strategy cut to "c…"
    assert "seed000-submit " in "\n".join(lines) and "anthropic-clear " in "\n".join(lines)
    assert "hit miss out" not in "\n".join(lines)  # the cost's parts: a column of the wider tables only


async def test_the_legend_says_what_a_failed_compaction_is_when_the_table_shows_one(tmp_path: Path):
    """'compact' showed '151 (1 fail)' with no word under the table on what a fail is."""
    from rich.console import Console

    (tmp_path / "t.json").write_text(json.dumps(_chat(6)))
    analysis = await report.analyze([tmp_path], window=8_000, strategies=["ours"])

    def printed() -> str:
        c = Console(file=io.StringIO(), width=80, record=True)
        report.print_tables(analysis, c)
        return " ".join(c.export_text().split())

    assert "fail" not in printed()
    analysis.runs[0].runs[0].failed_compactions = 1
    out = printed()
    assert "(1 fail)" in out and "(N fail) = those tried that left the history as it was" in out


async def test_the_chart_says_what_a_failed_compaction_is_when_its_totals_show_one(tmp_path: Path):
    """The chart's totals showed '3 (1 fail)' with no word on what a fail is; the table's line says it."""
    from xml.etree import ElementTree

    from compact_agent.replay.plot import write_plot

    (tmp_path / "t.json").write_text(json.dumps(_chat(6)))
    analysis = await report.analyze([tmp_path], window=8_000, strategies=["ours", "none"])

    def texts() -> list[str]:
        chart = write_plot(analysis, tmp_path / "chart.svg")
        doc = ElementTree.fromstring(chart.read_text())
        height = float(doc.get("height") or 0)
        shown = doc.findall(".//{http://www.w3.org/2000/svg}text")
        assert all(float(t.get("y") or 0) <= height for t in shown)
        return [t.text or "" for t in shown]

    assert not any("fail" in t for t in texts())
    analysis.runs[0].runs[0].failed_compactions = 1
    shown = texts()
    assert any(t.endswith(" (1 fail)") for t in shown), shown
    assert "compactions: (N fail) = those tried that left the history as it was" in shown


def test_a_failed_start_session_is_a_session_with_nothing_to_replay(tmp_path: Path):
    """A session whose run never reached the model (no key, an endpoint down) holds its prompt
    alone: it is a compact-agent session with no response, not a file of another kind."""
    session = tmp_path / "20261204-091453-e5758c.jsonl"
    session.write_text(json.dumps({"v": 1, "id": "fdc642c840f2", "parent": None,
                                   "time": "2026-12-04T09:14:53+00:00", "kind": "prompt",
                                   "prompt": {"text": "hi"}}) + "\n")
    assert batch.load_or_note(session) == f"skipped {session}: no model responses to replay"


def test_an_import_deeper_than_the_stack_skips_that_file_alone(tmp_path: Path, monkeypatch):
    """A RecursionError in an importer (a session's chain of archives followed by recursion did it)
    ended the whole run, 'analysis failed: maximum recursion depth exceeded', the other files'
    figures lost. It is that file's one note, as a field of the wrong kind is. The importer here is
    one that recurses for ever, so that whatever importer recursed, the file is skipped."""
    def endless(path: Path) -> object:
        return endless(path)

    monkeypatch.setattr(batch, "load_transcript", endless)
    path = tmp_path / "deep.json"
    assert batch.load_or_note(path) == f"skipped {path}: nested too deeply for the analyzer to read"


async def test_stand_in_summaries_of_a_text_format_trajectory_carry_the_typed_task(tmp_path: Path):
    """Each command's output in mini-swe-agent's first format is a user message: summarised by the
    stand-in as the user's words, forty of them pushed the task out of every summary after the first."""
    messages = [{"role": "system", "content": "You can run bash."},
                {"role": "user", "content": "Fix the parser in src/parser.py"}]
    for i in range(40):
        messages += [{"role": "assistant", "content": f"Step {i}.\n```bash\ncat f{i}.py\n```"},
                     {"role": "user", "content": f"<output>line {i} " + "y" * 1_500 + "</output>"}]
    messages.append({"role": "assistant", "content": "Done."})
    path = tmp_path / "t.traj.json"
    path.write_text(json.dumps({"info": {}, "trajectory_format": "mini-swe-agent-1", "messages": messages}))
    [run] = await batch.replay_files([path], ["seed000", "opencode"], window=8_000, pricing="deepseek", workers=1)
    assert not isinstance(run, batch.Skipped)
    for strategy in run.runs:
        assert len(strategy.retention) >= 3, strategy.strategy
        assert [r.users for r in strategy.retention] == [1.0] * len(strategy.retention), strategy.strategy
