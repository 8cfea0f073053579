"""Codex's importer reads a usage through usage_from_mapping, which marks a request's usage unknown
when one of its values is no count (test_usage_counts_strict.py); it kept a usage only when it counted
some input or output, so the marked one, counting none, was dropped with its mark: the request was
replayed as without usage and nothing said why. Now it is attached, unknown, and said once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compact_agent.replay import load_transcript

from ._helpers import responses
from .test_codex_newer_lines import meta, typed, usage_record
from .test_codex_newer_lines import reply as codex_reply
from .test_importer_traps import token_count, write_jsonl
from .test_usage_counts_strict_more import said, unknown_at


@pytest.mark.parametrize("line", ["token_count", "token_usage_record"])
def test_a_codex_count_that_is_no_count_makes_its_request_unknown_and_is_said(tmp_path: Path, line: str) -> None:
    """Codex's importer kept a usage only when it counted some input or output: one marked unknown for
    a value that is no count counts none, and was dropped with its mark, unsaid."""
    def usage(i: int, prompt: Any) -> dict[str, Any]:
        if line == "token_usage_record":
            record = usage_record(f"resp_{i}", 1_000, 30)
            record["payload"]["usage"]["input_tokens"] = prompt
            return record
        event = token_count(10_000 * (i + 1), 1_000, 500, 30)
        event["payload"]["info"]["last_token_usage"]["input_tokens"] = prompt
        return event

    rollout = [meta()]
    for i, prompt_tokens in enumerate((1_000, "1300", 1_600)):
        rollout += [*typed(f"step {i}"), codex_reply(f"done {i}"), usage(i, prompt_tokens)]
    transcript = load_transcript(write_jsonl(tmp_path / "rollout.jsonl", rollout))
    assert transcript.format == "codex"
    unknown_at(transcript, 1)
    said(transcript, "input_tokens", "text")
    assert [r.usage.input_tokens for r in responses(transcript.messages)] == [1_000, 0, 1_600]
    assert not any("token count" in w for w in transcript.warnings), transcript.warnings
