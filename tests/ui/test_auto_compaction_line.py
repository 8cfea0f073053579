"""The line of a compaction the program started says what it wrote and where the conversation
before it went, as /compact does. It said 'compacted (auto, record): 5,518 → 3,744 tokens': what
'record' meant (a record of the steps the program wrote, no model asked) was in /help only, and
the archive of the full transcript was named by /compact alone."""

from __future__ import annotations

import re
from pathlib import Path

from .repl_driver import drive
from .test_compaction_line import talker

talk = talker(20, 400)


async def test_an_automatic_compaction_says_what_it_wrote_and_names_its_archive(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("COMPACT_AGENT_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.setenv("COMPACT_AGENT_COLLAPSE_ENABLED", "false")  # the conversation grows to the threshold
    run = await drive(tmp_path, talk, [f"question {i} about the parser\r" for i in range(8)], context_window=8_000)
    lines = run.out.splitlines()
    at = [i for i, line in enumerate(lines) if line.startswith("compacted (auto, ")]
    assert at, run.out
    for i in at:
        assert re.fullmatch(r"compacted \(auto, (full|record written without a model|session notes as the summary)\): "
                            r"[\d,]+ → [\d,]+ tokens( in .*)?", lines[i]), lines[i]
        archived = re.fullmatch(r"full transcript archived at (.+)", lines[i + 1])
        assert archived and Path(archived[1]).is_file(), lines[i:i + 2]


def test_the_line_says_a_record_was_written_without_a_model() -> None:
    from compact_agent.context.plumbing.events import CompactionEvent
    from compact_agent.ui.render import archive_line, compact_line

    auto = CompactionEvent("compact", "record", 5518, 3744, trigger="auto", detail={"archive": "/a/b.jsonl"})
    assert compact_line(auto) == "compacted (auto, record written without a model): 5,518 → 3,744 tokens"
    assert archive_line(auto) == "full transcript archived at /a/b.jsonl"
    manual = CompactionEvent("compact", "full", 5518, 3744, trigger="manual", detail={"archive": "/a/b.jsonl"})
    assert archive_line(manual) is None  # /compact says it itself
