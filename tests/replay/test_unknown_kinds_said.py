"""Entries of a kind an importer does not know (a newer release's records) are left out, and said:
one warning per transcript naming each kind with its count, and `unknown_kinds` in `--json`. They
used to be counted in `Transcript.skipped` alone, which nothing showed."""

from __future__ import annotations

import json
from pathlib import Path

from compact_agent.replay import load_transcript

from .test_cli_analyze import cli
from .test_codex_rollouts import FIRST, HEAD
from .test_importer_traps import cc_assistant, cc_user, cx, write_jsonl

NEWER = [cx("response_item", {"type": "image_generation_call", "id": "ig1", "status": "completed"}),
         cx("response_item", {"type": "additional_tools", "tools": []}),
         cx("response_item", {"type": "image_generation_call", "id": "ig2", "status": "completed"}),
         cx("thread_forecast", {"input_tokens": 90})]  # a kind no release writes yet


def test_a_rollouts_entries_of_unknown_kinds_are_named_with_their_counts(tmp_path: Path) -> None:
    transcript = load_transcript(write_jsonl(tmp_path / "rollout-2026-08-01T10-00-00-s.jsonl", [*HEAD, *FIRST, *NEWER]))
    assert transcript.unknown_kinds == {"image_generation_call": 2, "additional_tools": 1, "thread_forecast": 1}
    assert transcript.skipped == 4
    assert transcript.warnings[-1] == ("skipped 4 entries of kinds the analyzer does not know (image_generation_call 2, "
                                       "additional_tools 1, thread_forecast 1): what they held, if the model saw it, "
                                       "is missing from the replay")


def test_a_claude_code_line_of_an_unknown_type_is_named(tmp_path: Path) -> None:
    records = [cc_user("hi", "2026-09-01T10:00:00Z"), {"type": "future-kind", "uuid": "f", "data": 1},
               cc_assistant("msg_1", {"type": "text", "text": "hello"}, "2026-09-01T10:00:01Z", 3, final=True)]
    transcript = load_transcript(write_jsonl(tmp_path / "s.jsonl", records))
    assert transcript.warnings == ["skipped 1 entry of a kind the analyzer does not know (future-kind 1): what it "
                                   "held, if the model saw it, is missing from the replay"]


def test_json_counts_them_per_transcript(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "rollout-2026-08-01T10-00-00-s.jsonl", [*HEAD, *FIRST, *NEWER])
    out = cli("rollout-2026-08-01T10-00-00-s.jsonl", "--json", "--strategy", "none", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    [transcript] = json.loads(out.stdout)["transcripts"]
    assert transcript["unknown_kinds"] == {"image_generation_call": 2, "additional_tools": 1, "thread_forecast": 1}
    assert any(w.startswith("skipped 4 entries of kinds the analyzer does not know") for w in transcript["warnings"])


def test_claude_code_metadata_lines_of_newer_versions_are_no_unknown_kinds(tmp_path: Path) -> None:
    """Lines Claude Code writes of the session itself (a tag, the agent's colour and setting, commit
    attribution, speculation timing, a `claude ps` summary): the model never reads them, so they were
    a false "missing from the replay" warning."""
    metadata = [{"type": "tag", "sessionId": "s", "tag": "release"},
                {"type": "agent-color", "sessionId": "s", "agentColor": "blue"},
                {"type": "agent-setting", "sessionId": "s", "agentSetting": "reviewer"},
                {"type": "attribution-snapshot", "messageId": "m", "surface": "cli", "fileStates": {}},
                {"type": "speculation-accept", "timestamp": "2026-09-01T10:00:00Z", "timeSavedMs": 900},
                {"type": "task-summary", "sessionId": "s", "summary": "fixing tests"},
                {"type": "frame-link", "sessionId": "s", "path": "a", "frameUrl": "u"},
                {"type": "relocated", "sessionId": "s", "relocatedCwd": "/w"}]
    records = [cc_user("hi", "2026-09-01T10:00:00Z"), *metadata,
               cc_assistant("msg_1", {"type": "text", "text": "hello"}, "2026-09-01T10:00:01Z", 3, final=True)]
    transcript = load_transcript(write_jsonl(tmp_path / "s.jsonl", records))
    assert transcript.format == "claude-code"
    assert transcript.unknown_kinds == {} and transcript.warnings == []
