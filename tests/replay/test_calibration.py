"""The stand-in summary remembers about as much as the real summaries recorded in transcripts."""

from __future__ import annotations

from pathlib import Path

from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.replay.calibration import summary_recall
from compact_agent.replay.importers import Transcript, load_transcript
from compact_agent.replay.standin import standin_summary

from .test_importers import DATA, requires_data

ROOT = "/home/me/project"


def _session() -> list:
    return [
        ModelRequest(parts=[UserPromptPart("make the parser strict")]),
        ModelResponse(parts=[ToolCallPart("Read", {"file_path": f"{ROOT}/src/parser.py"}, tool_call_id="a")]),
        ModelRequest(parts=[ToolReturnPart("Read", "def parse_strict(): pass", tool_call_id="a")]),
        ModelResponse(parts=[ToolCallPart("Read", {"file_path": f"{ROOT}/docs/usage.md"}, tool_call_id="b")]),
        ModelRequest(parts=[ToolReturnPart("Read", "usage", tool_call_id="b")]),
        ModelResponse(parts=[ToolCallPart("Edit", {"file_path": f"{ROOT}/src/parser.py", "old_string": "pass",
                                                   "new_string": "raise_on_unknown_token(tokens)"},
                                          tool_call_id="c")]),
        ModelRequest(parts=[ToolReturnPart("Edit", "ok", tool_call_id="c")]),
        ModelResponse(parts=[TextPart("done")]),
    ]


def test_the_standin_names_files_as_summaries_do_and_quotes_the_latest_code():
    text = standin_summary(_session())
    # Files only read are named relative to the project, as real summaries name them.
    assert "docs/usage.md" in text and f"{ROOT}/docs/usage.md" not in text
    # Changed files keep their whole path (the retention measure looks for it).
    assert f"- CHANGED: {ROOT}/src/parser.py" in text
    # The current work's code, as the summary prompt asks for snippets of it.
    assert "Latest code: raise_on_unknown_token(tokens)" in text


def test_summary_recall_counts_only_what_the_replaced_messages_held():
    msgs = _session()
    summary = "Summary: parse_strict in src/parser.py"
    later = [ModelRequest(parts=[UserPromptPart(summary)]),
             ModelResponse(parts=[TextPart("Next: parse_strict and raise_on_unknown_token, then docs/usage.md")])]
    t = Transcript(Path("s.jsonl"), "claude-code", [*msgs, *later],
                   recorded_compactions=[{"message_index": len(msgs), "summary_chars": len(summary)}])
    [row] = summary_recall(t)
    # parse_strict and raise_on_unknown_token are needed; docs/usage.md is a path and needed too.
    assert row.needed == 3
    assert row.real_kept == 1  # only parse_strict is in the real summary
    assert row.standin_kept == 3


@requires_data
def test_the_standin_lands_within_five_points_of_real_summaries():
    rows = [r for f in sorted((DATA / "claude-code").glob("*.jsonl")) for r in summary_recall(load_transcript(f))]
    needed = sum(r.needed for r in rows)
    assert len(rows) == 3 and needed > 50
    real = sum(r.real_kept for r in rows) / needed
    standin = sum(r.standin_kept for r in rows) / needed
    assert abs(real - standin) <= 0.05, (real, standin)
