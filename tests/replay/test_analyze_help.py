"""`analyze --help` names every kind of transcript the analyzer reads."""

from __future__ import annotations

import re

from compact_agent.replay.report import nothing_found

from .test_cli_analyze import cli


def test_the_help_names_every_format_the_analyzer_reads() -> None:
    """The help's PATH line named six formats after Anthropic chat lists, Cline and Roo Code tasks
    and Gemini CLI chats were read too, so a person with one of those took it for unreadable."""
    known = nothing_found([]).removeprefix("no transcripts found (").removesuffix(")")
    names = [n.strip() for n in re.split(r",| or ", known.replace(" JSONL", "").replace(" JSON", "")
                                          .replace(" tasks", "").replace(" chats", "").replace(" chat", ""))]
    helped = " ".join(cli("--help").stdout.split())
    assert len(names) >= 10 and [n for n in names if n not in helped] == []
