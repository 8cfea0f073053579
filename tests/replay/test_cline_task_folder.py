"""A Cline task's folder: the usage its ui_messages.json records for each request, attached to the
response it belongs to only when that is certain, and the task's other files not taken for broken
transcripts. The files are written here in the shapes Cline writes them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic_ai.messages import UserPromptPart

from compact_agent.replay import load_transcript
from compact_agent.replay.finding import find_files
from compact_agent.replay.retention import typed_texts
from compact_agent.replay.simulate import recorded_points, replay_messages

from ._helpers import assert_valid_conversation, responses
from .test_cli_analyze import cli

TASK = "<task>\nfix a.py\n</task>"
ENV = "<environment_details>\n# Current Time\nnow\n</environment_details>"


def history() -> list[dict[str, Any]]:
    """Two requests on native tool calls, then a third; entry times in milliseconds."""
    return [
        {"role": "user", "content": [{"type": "text", "text": TASK}, {"type": "text", "text": ENV}], "ts": 1_000},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a.py"}}],
         "modelInfo": {"modelId": "claude-x", "providerId": "anthropic", "mode": "act"}, "ts": 2_000},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x = 1\n" * 600},
                                     {"type": "text", "text": ENV}], "ts": 3_000},
        {"role": "assistant", "content": [{"type": "text", "text": "Fixed."}],
         "modelInfo": {"modelId": "claude-x", "providerId": "anthropic", "mode": "act"}, "ts": 4_000},
    ]


def started(ts: int, index: int | None, tokens_in: int, out: int, writes: int = 0, reads: int = 0) -> dict[str, Any]:
    """An api_req_started line as Cline leaves it once the request has finished."""
    line: dict[str, Any] = {"ts": ts, "type": "say", "say": "api_req_started", "text": json.dumps(
        {"request": "...", "tokensIn": tokens_in, "tokensOut": out, "cacheWrites": writes, "cacheReads": reads,
         "cost": 0.01})}
    if index is not None:
        line["conversationHistoryIndex"] = index
    return line


def task(tmp_path: Path, entries: list[dict[str, Any]], ui: list[dict[str, Any]]) -> Path:
    folder = tmp_path / "tasks" / "1700000000000"
    folder.mkdir(parents=True)
    (folder / "api_conversation_history.json").write_text(json.dumps(entries))
    (folder / "ui_messages.json").write_text(json.dumps(
        [{"ts": 900, "type": "say", "say": "task", "text": "fix a.py", "conversationHistoryIndex": -1}, *ui]))
    (folder / "task_metadata.json").write_text(json.dumps({"files_in_context": [], "model_usage": []}))
    (folder / "context_history.json").write_text("[]")
    (folder / "settings.json").write_text("{}")
    return folder


def usage_of(folder: Path) -> list[tuple[int, int, int, int]]:
    transcript = load_transcript(folder / "api_conversation_history.json")
    return [(r.usage.input_tokens, r.usage.cache_read_tokens, r.usage.cache_write_tokens, r.usage.output_tokens)
            for r in responses(transcript.messages)]


def test_each_request_gets_the_usage_its_line_records(tmp_path: Path) -> None:
    folder = task(tmp_path, history(), [started(950, -1, 10, 40, writes=2_000),
                                        started(2_500, 1, 5, 8, writes=600, reads=2_000)])
    assert usage_of(folder) == [(2_010, 0, 2_000, 40), (2_605, 2_000, 600, 8)]
    assert not load_transcript(folder / "api_conversation_history.json").warnings


def test_an_openai_compatible_provider_counts_its_cache_reads_in_its_input(tmp_path: Path) -> None:
    entries = history()
    for entry in entries[1::2]:
        entry["modelInfo"] = {"modelId": "deepseek-chat", "providerId": "openai", "mode": "act"}
    folder = task(tmp_path, entries, [started(950, -1, 2_010, 40), started(2_500, 1, 2_605, 8, writes=605, reads=2_000)])
    assert usage_of(folder) == [(2_010, 0, 0, 40), (2_605, 2_000, 0, 8)]


def test_usage_that_cannot_be_matched_for_certain_is_left_out_and_said(tmp_path: Path) -> None:
    # Both lines name the same response (a request that failed and was made again), and a third
    # began after the response it names was written.
    folder = task(tmp_path, history(), [started(950, -1, 10, 40), started(960, -1, 11, 41),
                                        started(4_500, 1, 5, 8)])
    transcript = load_transcript(folder / "api_conversation_history.json")
    assert [r.usage.unmeasured_requests for r in responses(transcript.messages)] == [1, 1]
    assert transcript.warnings == ["3 requests of ui_messages.json could not be matched for certain with their "
                                   "responses: their recorded usage is not used"]


def test_older_lines_without_the_index_are_matched_in_order_only_when_they_all_fit(tmp_path: Path) -> None:
    folder = task(tmp_path, history(), [started(950, None, 10, 40), started(2_500, None, 5, 8)])
    assert usage_of(folder) == [(10, 0, 0, 40), (5, 0, 0, 8)]
    one_short = task(tmp_path / "b", history(), [started(2_500, None, 5, 8)])
    transcript = load_transcript(one_short / "api_conversation_history.json")
    assert all(r.usage.unmeasured_requests == 1 for r in responses(transcript.messages))
    assert transcript.warnings and "could not be matched for certain" in transcript.warnings[0]


def test_a_provider_not_known_here_with_cached_tokens_is_said(tmp_path: Path) -> None:
    entries = history()
    for entry in entries[1::2]:
        entry["modelInfo"] = {"modelId": "m", "providerId": "litellm", "mode": "act"}
    folder = task(tmp_path, entries, [started(950, -1, 10, 40), started(2_500, 1, 5, 8, reads=2_000)])
    assert usage_of(folder) == [(10, 0, 0, 40), (2_005, 2_000, 0, 8)]
    [warning] = load_transcript(folder / "api_conversation_history.json").warnings
    assert warning.startswith("1 request with cached tokens from a provider whose counting is not known here")


def test_the_tasks_other_files_are_not_taken_for_transcripts(tmp_path: Path) -> None:
    folder = task(tmp_path, history(), [started(950, -1, 10, 40), started(2_500, 1, 5, 8)])
    found = find_files([tmp_path / "tasks"])
    assert found.files == [folder / "api_conversation_history.json"] and not found.notes
    named = find_files([folder / "ui_messages.json"])
    assert not named.files and named.notes == [
        f"skipped {folder / 'ui_messages.json'}: one of Cline's files beside the task's api_conversation_history.json,"
        " which is read with it"]
    out = cli(str(tmp_path / "tasks"), "--window", "32000", "--strategy", "none")
    assert out.returncode == 0, out.stderr
    assert "skipped" not in out.stderr and "cline, 2 recorded requests" in out.stdout


def test_the_request_from_which_cline_left_history_out_is_its_recorded_compaction(tmp_path: Path) -> None:
    """Cline's context management leaves a range of entries out of its requests without touching the
    history file; the lines written once it has are marked with the range. The sizes recorded from the
    request under way then are not a measure of the history."""
    truncated = {"ts": 2_600, "type": "say", "say": "text", "text": "Fixed.",
                 "conversationHistoryIndex": 2, "conversationHistoryDeletedRange": [1, 2]}
    folder = task(tmp_path, history(), [started(950, -1, 10, 40), started(2_500, 1, 5, 8), truncated])
    transcript = load_transcript(folder / "api_conversation_history.json")
    assert [c["message_index"] for c in transcript.recorded_compactions] == [2]
    assert transcript.recorded_compactions[0]["source"] == "cline"
    assert transcript.warnings == ["Cline left part of the history out of its requests (its context management) "
                                   "from request 2 on: the sizes it recorded from there are not used to fit ours"]
    assert len(recorded_points(transcript, transcript.messages)) == 1


def roo_started(ts: int, index: int, protocol: str, tokens_in: int, writes: int = 0, reads: int = 0) -> dict[str, Any]:
    """An api_req_started line as Roo Code writes it: the API protocol named, no request text."""
    line = started(ts, index, tokens_in, 7, writes=writes, reads=reads)
    info = json.loads(line["text"])
    del info["request"]
    line["text"] = json.dumps({"apiProtocol": protocol, **info})
    return line


def test_roo_codes_sizes_are_read_by_the_protocol_it_names(tmp_path: Path) -> None:
    """Roo Code records the whole input on OpenAI's protocol, and on Anthropic's since October 2025;
    an input smaller than its cached part can only be the uncached part (its releases before)."""
    entries = history()
    entries.append({"role": "user", "content": [{"type": "text", "text": "<user_message>\nand b.py\n</user_message>"}],
                    "ts": 5_000})
    entries.append({"role": "assistant", "content": [{"type": "text", "text": "Also fixed."}], "ts": 6_000})
    folder = task(tmp_path, entries, [roo_started(950, -1, "openai", 2_010, reads=2_000),
                                      roo_started(2_500, 1, "anthropic", 2_610, writes=600, reads=2_000),
                                      roo_started(4_500, 3, "anthropic", 10, writes=100, reads=2_600)])
    assert usage_of(folder) == [(2_010, 2_000, 0, 7), (2_610, 2_000, 600, 7), (2_710, 2_600, 100, 7)]
    assert load_transcript(folder / "api_conversation_history.json").warnings == [
        "1 request on Anthropic's protocol recorded an input at least as large as its cached part: taken as the "
        "whole input, as Roo Code counts it since October 2025 (from July to October 2025 it recorded the "
        "uncached part alone)"]


def test_roo_codes_summary_and_truncation_marker_are_its_compactions(tmp_path: Path) -> None:
    """Roo Code keeps every message in the file: a condense appends its summary after the messages it
    stands for, a truncation puts a marker where the hidden messages end."""
    summary = "## Conversation Summary\nFixed a.py; b.py next."
    entries = [
        {"role": "user", "content": [{"type": "text", "text": "<user_message>\nfix a.py\n</user_message>"},
                                     {"type": "text", "text": ENV}], "ts": 1_000},
        {"role": "assistant", "content": [{"type": "text", "text": "Reading."},
                                          {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a.py"}}],
         "ts": 2_000, "condenseParent": "c1", "truncationParent": "t-1"},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x = 1"}], "ts": 3_000,
         "condenseParent": "c1", "truncationParent": "t-1"},
        {"role": "user", "content": "[Sliding window truncation: 2 messages hidden to reduce context]", "ts": 3_999,
         "isTruncationMarker": True, "truncationId": "t-1"},
        {"role": "assistant", "content": [{"type": "text", "text": "Fixed."}], "ts": 4_000, "condenseParent": "c1"},
        {"role": "user", "content": [{"type": "text", "text": summary}, {"type": "text", "text": ENV}], "ts": 4_001,
         "isSummary": True, "condenseId": "c1"},
        {"role": "assistant", "content": [{"type": "text", "text": "What next?"}], "ts": 5_000},
    ]
    folder = task(tmp_path, entries, [])
    transcript = load_transcript(folder / "api_conversation_history.json")
    assert_valid_conversation(transcript.messages)
    kinds = [(c["source"], c["kind"], c.get("summary_chars")) for c in transcript.recorded_compactions]
    assert kinds == [("roo-code", "truncation", None), ("roo-code", "condense", len(summary))]
    texts = [p.content for m in transcript.messages for p in m.parts if isinstance(p, UserPromptPart)]
    assert not any("Sliding window" in t for t in texts if isinstance(t, str))
    assert typed_texts(transcript.messages, transcript.harness_texts) == ["fix a.py"]
    replayed = [p.content for m in replay_messages(transcript) for p in m.parts if isinstance(p, UserPromptPart)]
    assert summary not in replayed and summary in texts
