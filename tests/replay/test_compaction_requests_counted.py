"""Claude Code's compaction requests (`agent-acompact-*.jsonl`) are counted apart from the sessions."""

from __future__ import annotations

import json
from pathlib import Path

from .test_cli_analyze import cli
from .test_importer_traps import CLAUDE_SESSION, write_jsonl


def said(text: str) -> str:
    return " ".join(text.split())


def session_and_its_compaction_request(folder: Path) -> None:
    """A Claude Code session, and beside it the request of one of its compactions, as Claude Code keeps it."""
    write_jsonl(folder / "session.jsonl", CLAUDE_SESSION)
    side = folder / "session" / "subagents"
    side.mkdir(parents=True)
    write_jsonl(side / "agent-acompact-abc123.jsonl", [{**r, "agentId": "acompact-abc123", "isSidechain": True}
                                                       if r.get("type") in ("user", "assistant") else r
                                                       for r in CLAUDE_SESSION])


def test_claude_codes_compaction_requests_are_counted_apart_from_sessions(tmp_path: Path) -> None:
    """`subagents/agent-acompact-*.jsonl` (the compaction's own request) counted among the sessions:
    'Total over 24 transcripts' for 21 sessions. They are still replayed (the figures stay)."""
    session_and_its_compaction_request(tmp_path)
    out = cli(".", "-s", "ours", cwd=tmp_path, env={"COLUMNS": "80"})
    assert out.returncode == 0, out.stderr
    assert "Total over 2 transcripts (1 of them Claude Code compaction request, not sessions)" in said(out.stdout)
    assert said(out.stdout).count("the compaction request of the session beside it") == 1
    data = json.loads(cli(".", "-s", "ours", "--json", cwd=tmp_path).stdout)
    flags = {t["path"]: t["compaction_request"] for t in data["transcripts"]}
    assert flags == {"session.jsonl": False, "session/subagents/agent-acompact-abc123.jsonl": True}
    totals = json.loads(cli(".", "-s", "ours", "--json", "--totals", cwd=tmp_path).stdout)
    assert (totals["transcripts"], totals["compaction_requests"]) == (2, 1)


def test_the_charts_totals_count_them_apart_too(tmp_path: Path) -> None:
    """The text's totals said '2 transcripts (1 of them Claude Code compaction request, not
    sessions)' while the chart of the same run said only '2 transcripts'. Its totals table is titled
    as the text's is (the heading, one line across the chart, has no room for it)."""
    session_and_its_compaction_request(tmp_path)
    out = cli(".", "-s", "ours", "--plot", "chart.svg", cwd=tmp_path, env={"COLUMNS": "80"})
    assert out.returncode == 0, out.stderr
    assert ">Totals over 2 transcripts (1 of them Claude Code compaction request, not sessions)</text>" \
        in (tmp_path / "chart.svg").read_text()
