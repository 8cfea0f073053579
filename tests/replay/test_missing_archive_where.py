"""A session of ours whose archive is missing is said with the folder the analyzer looked in. After
a project was moved (its sessions folder with it), the warning named the archive's saved absolute
path, `the archive before a full compaction is missing (/old/place/compact-history/s1-….jsonl)`: a
path that leads nowhere, while the archive was looked for, by its name, in the session's own
`compact-history/`, where the loader finds a moved archive (session/archive_paths.py)."""

from __future__ import annotations

import os
from pathlib import Path

from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.usage import RequestUsage

from compact_agent.context.compaction import summary
from compact_agent.replay.importers import load_transcript
from compact_agent.session.store import SessionStore


def _exchange(i: int) -> list[ModelRequest | ModelResponse]:
    return [ModelResponse(parts=[TextPart(f"step {i}"), ToolCallPart("read_file", {"path": f"f{i}"}, tool_call_id=f"c{i}")],
                          usage=RequestUsage(input_tokens=100 * i + 50, output_tokens=10), model_name="m"),
            ModelRequest(parts=[ToolReturnPart("read_file", "y" * 200, tool_call_id=f"c{i}")])]


def _compacted(folder: Path) -> tuple[Path, Path]:
    """A session in `folder` compacted once: its file, and the archive its boundary names."""
    store = SessionStore(folder, "s1")
    store.append([ModelRequest(parts=[UserPromptPart("survey the code")]), *_exchange(0), *_exchange(1)])
    archive = store.archive()
    store.rewrite({"trigger": "auto", "strategy": "full", "tokens_before": 900, "tokens_after": 300,
                   "archive": str(archive), "time": ""},
                  [summary.summary_message("they surveyed f0, f1", archive, ["survey the code"]), *_exchange(2)])
    return store.path, archive


def test_a_moved_sessions_archive_is_found_and_a_missing_one_said_where_it_was_looked_for(tmp_path: Path) -> None:
    old, new = tmp_path / "old-place", tmp_path / "new-place"
    session, archive = _compacted(old)
    old.rename(new)  # the project's sessions folder moved with it: the saved path leads nowhere now
    moved = new / session.name
    found = load_transcript(moved)
    assert not any("archive" in w and "missing" in w for w in found.warnings), found.warnings
    assert found.recorded_compactions  # rebuilt through the archive in its own compact-history/

    (new / "compact-history" / archive.name).unlink()
    folder = Path(os.path.realpath(new / "compact-history"))
    warnings = load_transcript(moved).warnings
    assert (f"s1.jsonl: the archive before a full compaction is missing: no {archive.name} in {folder}/ "
            f"(recorded as {archive}); replaying from the compacted history") in warnings, warnings


def test_a_missing_archive_where_it_was_saved_is_named_once(tmp_path: Path) -> None:
    session, archive = _compacted(tmp_path)
    archive.unlink()
    folder = Path(os.path.realpath(archive.parent))
    assert (f"s1.jsonl: the archive before a full compaction is missing: no {archive.name} in {folder}/; replaying "
            "from the compacted history") in load_transcript(session).warnings
