"""Our own session files: rebuild the full, uncompacted conversation from the archive chain.

A compacted session file starts with a ``boundary`` entry naming the archive that holds the file as
it was before that compaction (which may itself start with an earlier boundary), followed by the
new history: the summary request, files re-read after the compaction (marked in metadata
``{"compact_agent": {"synthetic": "restore"}}``) and a kept tail that repeats the end of the archive.
Replaying our strategy against the *compacted* file would measure our own earlier compactions, so
the chain is followed back and the pieces are put together again:

    full(file) = full(archive) + (file's messages − summary − restored reads − what the archive holds)

A rewind boundary (``/rewind``) is different, as are an edited history and a prompt cut to a window a
server's refusal taught (``input_cut``): the messages after it are the truth and the archive's later
messages were undone or replaced, so the result is the archive cut where the messages both hold
end, then the file's own; none of them is a compaction. An archive
that is missing (moved, deleted) ends the chain with a warning: what the file holds is replayed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelRequestPart,
    ModelResponse,
    ModelResponsePart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from ..context.compaction.summary import SUMMARY_MARK, UPDATE_HEADS
from ..session.listing import NOT_FOLDING
from ..session.store import Boundary, load_session_file
from ._validity import make_valid
from ._words import plural

KINDS = frozenset({"message", "boundary", "meta", "prompt"})  # the kinds a session file holds (session/lines.py)
MAX_CHAIN = 1_000


def looks_like_record(record: Any) -> bool:
    return isinstance(record, dict) and record.get("kind") in KINDS and "v" in record and "id" in record


def _synthetic(part: Any) -> bool:
    meta = getattr(part, "metadata", None)
    ours = meta.get("compact_agent") if isinstance(meta, dict) else None
    return isinstance(ours, dict) and ours.get("synthetic") == "restore"


def strip_compaction(messages: Sequence[ModelMessage]) -> list[ModelMessage]:
    """Drop the summary text and the restored reads a compaction wrote into the history."""
    restored = {p.tool_call_id for m in messages if isinstance(m, ModelRequest)
                for p in m.parts if isinstance(p, ToolReturnPart) and _synthetic(p)}
    out: list[ModelMessage] = []
    for m in messages:
        parts: list[ModelRequestPart] | list[ModelResponsePart]
        if isinstance(m, ModelRequest):
            parts = [p for p in m.parts if not (
                (isinstance(p, UserPromptPart) and isinstance(p.content, str)
                 and p.content.startswith((SUMMARY_MARK, *UPDATE_HEADS)))
                or (isinstance(p, ToolReturnPart) and p.tool_call_id in restored))]
        else:
            parts = [p for p in m.parts if not (isinstance(p, ToolCallPart) and p.tool_call_id in restored)]
        if len(parts) == len(m.parts):
            out.append(m)
        elif parts:
            out.append(_with_parts(m, parts))
    return out


def _with_parts(m: ModelMessage, parts: list[Any]) -> ModelMessage:
    if isinstance(m, ModelRequest):
        return ModelRequest(parts=parts, timestamp=m.timestamp, instructions=m.instructions)
    assert isinstance(m, ModelResponse)
    return ModelResponse(parts=parts, usage=m.usage, model_name=m.model_name, timestamp=m.timestamp,
                         provider_name=m.provider_name, provider_response_id=m.provider_response_id,
                         finish_reason=m.finish_reason)


def content_key(m: ModelMessage) -> str:
    """What a message says (kind and parts), ignoring timestamps and metadata a rewrite may change."""
    parts = []
    for p in m.parts:
        body = getattr(p, "content", None)
        if isinstance(p, ToolCallPart):
            body = p.args if isinstance(p.args, str) else json.dumps(p.args, sort_keys=True, default=str)
        parts.append([type(p).__name__, str(body), getattr(p, "tool_call_id", "")])
    return json.dumps([m.kind, parts], ensure_ascii=False, default=str)


def _archive_path(boundary: Boundary, file: Path) -> Path | None:
    if not boundary.archive:
        return None
    path = Path(boundary.archive)
    if not path.is_absolute():
        path = file.parent / path
    if path.is_file():
        return path
    moved = file.parent / "compact-history" / path.name
    return moved if moved.is_file() else None


def rebuild(path: Path, depth: int = 0) -> tuple[list[ModelMessage], list[dict[str, Any]], list[str]]:
    """(full messages, compactions with their message index, warnings) for one session file."""
    loaded = load_session_file(path)
    warnings = list(loaded.warnings if depth == 0 else loaded.archive_warnings)
    if not loaded.boundaries:
        return list(loaded.messages), [], warnings
    boundary = loaded.boundaries[-1]
    archive = _archive_path(boundary, path)
    if archive is None or depth >= MAX_CHAIN:
        warnings.append(f"{path.name}: the archive before a {boundary.strategy} compaction is missing "
                        f"({boundary.archive or 'not recorded'}); replaying from the compacted history")
        return strip_compaction(loaded.messages), [], warnings
    prior, compactions, more = rebuild(archive, depth + 1)
    warnings += more
    rest = strip_compaction(loaded.messages)
    keys = [content_key(m) for m in prior]
    if boundary.trigger in NOT_FOLDING:  # a rewind, an edited history, a prompt cut to the window: as it now is
        n = 0
        while n < len(rest) and n < len(prior) and content_key(rest[n]) == keys[n]:
            n += 1
        return prior[:n] + rest[n:], [c for c in compactions if c["message_index"] <= n], warnings
    known = set(keys)
    n = 0
    while n < len(rest) and content_key(rest[n]) in known:
        n += 1  # the kept head/tail: already in the archive
    compactions.append({"source": "compact-agent", "kind": "boundary", "trigger": boundary.trigger,
                        "strategy": boundary.strategy, "pre_tokens": boundary.tokens_before,
                        "post_tokens": boundary.tokens_after, "timestamp": boundary.time,
                        "message_index": len(prior), "summary_chars": 0})
    return prior + rest[n:], compactions, warnings


def load(path: Path) -> tuple[list[ModelMessage], list[dict[str, Any]], list[str]]:
    """The rebuilt conversation made provider-valid (as every importer's output is)."""
    messages, compactions, warnings = rebuild(path)
    valid, notes = make_valid(messages)
    if len(valid) != len(messages):
        # Indices moved: re-anchor each compaction at the first message that survived after it.
        survivors = {id(m): i for i, m in enumerate(valid)}
        for c in compactions:
            later = [survivors[id(m)] for m in messages[c["message_index"]:] if id(m) in survivors]
            c["message_index"] = later[0] if later else len(valid)
    if compactions:
        warnings.append(f"rebuilt the full conversation across {plural(len(compactions), 'compaction')} from the archives")
    return valid, compactions, warnings + notes
