"""`analyze`'s exit statuses in one list, in its `--help` and in docs/analyzer.md: they were
scattered through the docs' prose, and "no transcripts found" (2) was in none of it."""

from __future__ import annotations

import re
from pathlib import Path

from compact_agent.pipes import EXIT_READER_GONE
from compact_agent.replay.report import EXIT_INTERRUPTED

from .test_cli_analyze import cli

DOCS = Path(__file__).resolve().parents[2] / "docs" / "analyzer.md"


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def test_help_lists_every_exit_status_and_no_transcripts_found_is_2(tmp_path: Path) -> None:
    out = cli("--help")
    assert out.returncode == 0, out.stderr
    epilog = _flat(out.stdout[out.stdout.index("Exit status:"):])
    for code in (0, 1, 2, EXIT_INTERRUPTED, EXIT_READER_GONE):
        assert f" {code} " in epilog, (code, epilog)
    assert "no transcripts found; 130" in epilog, epilog  # said under 2, the status it ends with
    (tmp_path / "empty").mkdir()
    nothing = cli(str(tmp_path / "empty"))
    assert nothing.returncode == 2 and "no transcripts found" in nothing.stderr, nothing.stderr


def test_the_docs_list_every_exit_status() -> None:
    text = DOCS.read_text(encoding="utf-8")
    listed = text[text.index("### Exit status"):text.index("## How it works")]
    codes = re.findall(r"^- `(\d+)` — ", listed, flags=re.M)
    assert codes == ["0", "1", "2", str(EXIT_INTERRUPTED), str(EXIT_READER_GONE)], listed
    two = _flat(listed[listed.index("- `2`"):listed.index("- `130`")])
    assert "no transcripts found" in two, two
