"""Claude Code's microcompact: a ``system`` line ``microcompact_boundary`` says it cleared old tool
results in place (``microcompactMetadata.compactedToolIds``); the file keeps them as first written, so
the sizes it recorded after the line are of a history shorter than the one replayed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from compact_agent.replay import load_transcript
from compact_agent.replay.simulate import recorded_points

from ._helpers import assert_valid_conversation, results
from .test_importer_traps import cc_user, write_jsonl

OUTPUT = "line of a file\n" * 400


def read(n: int, input_tokens: int) -> list[dict[str, Any]]:
    """A response reading a file (its usage final) and the result."""
    ts = f"2026-09-01T10:00:{10 + 2 * n:02d}Z"
    usage = {"input_tokens": 3, "cache_read_input_tokens": input_tokens - 3, "cache_creation_input_tokens": 0,
             "output_tokens": 40, "server_tool_use": {"web_search_requests": 0}, "iterations": []}
    call = {"type": "tool_use", "id": f"toolu_{n}", "name": "Read", "input": {"file_path": f"/w/f{n}.py"}}
    return [{"type": "assistant", "uuid": f"a{n}", "timestamp": ts,
             "message": {"id": f"msg_{n}", "model": "claude-test", "role": "assistant", "content": [call],
                         "usage": usage}},
            cc_user([{"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": OUTPUT}], ts.replace("Z", ".5Z"))]


def test_sizes_recorded_after_a_microcompact_are_not_fitted(tmp_path: Path) -> None:
    boundary = {"type": "system", "subtype": "microcompact_boundary", "uuid": "mc", "content": "Context microcompacted",
                "timestamp": "2026-09-01T10:00:17Z", "level": "info", "isMeta": False,
                "microcompactMetadata": {"trigger": "auto", "preTokens": 9_000, "tokensSaved": 2_700,
                                         "compactedToolIds": ["toolu_0", "toolu_1"], "clearedAttachmentUUIDs": []}}
    records = [cc_user("read the files", "2026-09-01T10:00:00Z"),
               *read(0, 5_000), *read(1, 6_300), *read(2, 7_600), boundary, *read(3, 6_200), *read(4, 7_500)]
    transcript = load_transcript(write_jsonl(tmp_path / "5b1e0c9a.jsonl", records))
    assert_valid_conversation(transcript.messages)
    assert [r.content for r in results(transcript.messages)] == [OUTPUT] * 5  # every strategy replays them whole
    [compaction] = transcript.recorded_compactions
    assert compaction["kind"] == "microcompact"
    assert [p[1] for p in recorded_points(transcript, transcript.messages)] == [5_000, 6_300, 7_600]
    assert "Claude Code cleared 2 old tool results (its microcompact) from request 4 on: the sizes it recorded from " \
           "there are not used to fit ours, and every strategy replays them whole" in transcript.warnings
    assert transcript.skipped == 0


def test_a_boundary_without_the_ids_it_cleared_is_said_without_a_count(tmp_path: Path) -> None:
    """Before, a boundary whose metadata had no compactedToolIds said "cleared 0 old tool results", and
    one whose metadata was not an object cost the line, and with it the fit's cut."""
    for metadata in ({"trigger": "auto", "preTokens": 9_000}, "auto"):
        boundary = {"type": "system", "subtype": "microcompact_boundary", "uuid": "mc", "timestamp": "2026-09-01T10:00:17Z",
                    "content": "Context microcompacted", "microcompactMetadata": metadata}
        records = [cc_user("read the files", "2026-09-01T10:00:00Z"), *read(0, 5_000), *read(1, 6_300), boundary,
                   *read(2, 5_200)]
        transcript = load_transcript(write_jsonl(tmp_path / "5b1e0c9a.jsonl", records))
        assert [p[1] for p in recorded_points(transcript, transcript.messages)] == [5_000, 6_300]
        assert transcript.warnings == ["Claude Code cleared old tool results (its microcompact) from request 3 on: the "
                                       "sizes it recorded from there are not used to fit ours, and every strategy "
                                       "replays them whole"], transcript.warnings
