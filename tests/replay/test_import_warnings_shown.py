"""What the importers had to repair or approximate reaches the reader of the tables, not only `--json`:
a replay on filler standing for redacted text, a last line cut short, calls dropped."""

from __future__ import annotations

import json
from pathlib import Path

from compact_agent.replay import load_transcript

from .test_cli_analyze import cli
from .test_importer_traps import CLAUDE_SESSION, CODEX_SESSION, write_jsonl


def cut_short(path: Path, records: list, *, garbage: bool = False) -> Path:
    """The records as JSONL, the last one cut in the middle (`head -c`), and a garbage line first."""
    lines = [json.dumps(r) for r in records]
    text = ("not json\n" if garbage else "") + "\n".join(lines[:-1]) + "\n" + lines[-1][: len(lines[-1]) // 2]
    path.write_text(text)
    return path


def test_a_last_line_cut_short_is_dropped_with_a_warning(tmp_path: Path) -> None:
    """It was counted in `skipped` only: no warning in the JSON, nothing in the table."""
    whole = load_transcript(write_jsonl(tmp_path / "whole.jsonl", CLAUDE_SESSION))
    cut = load_transcript(cut_short(tmp_path / "cut.jsonl", CLAUDE_SESSION))
    assert cut.skipped == 1 and len(cut.messages) < len(whole.messages)
    said = ("the file ends in the middle of its last line (a session still being written, or a partial copy): "
            "replayed without it")
    assert said in cut.warnings and said not in whole.warnings
    garbled = load_transcript(cut_short(tmp_path / "garbled.jsonl", CODEX_SESSION, garbage=True))
    assert garbled.skipped == 2
    assert "skipped 1 line that is not a JSON object" in garbled.warnings
    assert not any("middle of its last line" in w for w in load_transcript(
        write_jsonl(tmp_path / "rollout.jsonl", CODEX_SESSION, tail="garbage\n")).warnings)  # a whole line


def test_the_tables_show_each_transcripts_warnings_and_the_totals_sum_them_up(tmp_path: Path) -> None:
    cut_short(tmp_path / "codex.jsonl", CODEX_SESSION)
    write_jsonl(tmp_path / "claude.jsonl", CLAUDE_SESSION)
    data = json.loads(cli(".", "-s", "ours", "--json", cwd=tmp_path).stdout)
    said = {t["path"]: t["warnings"] for t in data["transcripts"]}
    assert any("deterministic filler" in w for w in said["codex.jsonl"])

    out = cli(".", "-s", "ours", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    codex = out.stdout.split("codex.jsonl\n", 1)[1].split("Total over", 1)[0]
    for warning in said["codex.jsonl"]:  # under its own table, each on its line
        assert f"warning: {warning}" in codex, (warning, codex)
    assert "warning: the file ends in the middle of its last line" in codex

    totals = cli(".", "-s", "ours", "--totals", cwd=tmp_path)
    assert totals.returncode == 0, totals.stderr
    warned = sum(1 for w in said.values() if w)
    assert totals.stdout.count("warning:") == 1
    assert (f"warning: {warned} of 2 transcripts were imported with warnings (1 replayed on deterministic filler "
            "standing for redacted text)") in " ".join(totals.stdout.split())
    listed = json.loads(cli(".", "-s", "ours", "--totals", "--json", cwd=tmp_path).stdout)["warnings"]
    assert listed == {path: w for path, w in said.items() if w}  # as that line says --json lists them
