"""Our own session files: rebuild the full, uncompacted conversation from the archive chain.

A compacted session file starts with a ``boundary`` entry naming the archive that holds the file as
it was before that compaction (which may itself start with an earlier boundary), followed by the
new history: the summary request, files re-read after the compaction (marked in metadata
``{"compact_agent": {"synthetic": "restore"}}``), results still in use kept apart from their rounds
(``"kept"``) and a verbatim tail that repeats the end of the archive; a partial compaction keeps
the archive's first rounds before its summary instead.
Replaying our strategy against the *compacted* file would measure our own earlier compactions, so
the chain is followed back and the pieces are put together again:

    full(file) = full(archive) + (file's messages − summary − restored reads − kept results
                                  − context given back − the kept head − the tail that is the archive's end)

What comes after that tail is new, even where the same words came before it.

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
    ModelResponse,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from ..context.compaction.summary import SUMMARY_MARK, UPDATE_HEADS, is_synthetic_text
from ..session.listing import NOT_FOLDING
from ..session.store import Boundary, load_session_file
from ._validity import make_valid
from ._words import plural

KINDS = frozenset({"message", "boundary", "meta", "prompt"})  # the kinds a session file holds (session/lines.py)
MAX_CHAIN = 1_000


def looks_like_record(record: Any) -> bool:
    return isinstance(record, dict) and record.get("kind") in KINDS and "v" in record and "id" in record


def _ours(m: Any) -> Any:
    meta = getattr(m, "metadata", None)
    ours = meta.get("compact_agent") if isinstance(meta, dict) else None
    return ours.get("synthetic") if isinstance(ours, dict) else None


def _copied_ids(messages: Sequence[ModelMessage]) -> set[str]:
    """The tool calls a compaction wrote in again: files re-read (``restore``, their parts marked)
    and results still in use kept apart from the rounds they came in (``kept``, the messages
    marked; the archive holds the same call and result where they first came)."""
    return {p.tool_call_id for m in messages for p in m.parts
            if isinstance(p, (ToolReturnPart, ToolCallPart)) and (_ours(p) == "restore" or _ours(m) == "kept")}


def _is_compaction_text(p: Any) -> bool:
    return (isinstance(p, UserPromptPart) and isinstance(p.content, str)
            and p.content.startswith((SUMMARY_MARK, *UPDATE_HEADS)))


def strip_compaction(messages: Sequence[ModelMessage], copied: set[str] | None = None) -> list[ModelMessage]:
    """Drop the summary text and what a compaction wrote in again (`_copied_ids`, of `messages`
    unless given) from the history."""
    copied = _copied_ids(messages) if copied is None else copied
    out: list[ModelMessage] = []
    for m in messages:
        parts = [p for p in m.parts if not (
            _is_compaction_text(p) or (isinstance(p, (ToolReturnPart, ToolCallPart)) and p.tool_call_id in copied))]
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
    keys = [content_key(m) for m in prior]
    if boundary.trigger in NOT_FOLDING:
        rest = strip_compaction(loaded.messages)  # a rewind, an edited history, a prompt cut to the window: as it now is
        n = 0
        while n < len(rest) and n < len(prior) and content_key(rest[n]) == keys[n]:
            n += 1
        return prior[:n] + rest[n:], [c for c in compactions if c["message_index"] <= n], warnings
    copied = _copied_ids(loaded.messages)
    at = _last_compaction_message(loaded.messages)
    head, after = strip_compaction(loaded.messages[:at], copied), strip_compaction(loaded.messages[at:], copied)
    after = after[_restored_context(after):]
    rest = [*_not_held(head, keys), *after[_kept_tail(after, keys):]]
    compactions.append({"source": "compact-agent", "kind": "boundary", "trigger": boundary.trigger,
                        "strategy": boundary.strategy, "pre_tokens": boundary.tokens_before,
                        "post_tokens": boundary.tokens_after, "timestamp": boundary.time,
                        "message_index": len(prior), "summary_chars": 0})
    return prior + rest, compactions, warnings


def _last_compaction_message(messages: Sequence[ModelMessage]) -> int:
    """Where the newest compaction's message is (0 when none is found): what a compaction keeps
    of the rounds before it (a partial one's head) comes before it, the verbatim tail after it."""
    return next((i for i in range(len(messages) - 1, -1, -1)
                 if any(_is_compaction_text(p) for p in messages[i].parts)), 0)


def _restored_context(after: Sequence[ModelMessage]) -> int:
    """How many messages at the start of `after` carry only our own context a compaction gives back
    (the plan, MCP servers' notes, a hook's output), which the archive holds where it first came."""
    n = 0
    while n < len(after) and isinstance(after[n], ModelRequest) and all(
            isinstance(p, UserPromptPart) and is_synthetic_text(p.content) for p in after[n].parts):
        n += 1
    return n


def _not_held(head: Sequence[ModelMessage], keys: Sequence[str]) -> list[ModelMessage]:
    """The messages of `head` the archive does not hold, in order (a kept head is the archive's own
    rounds, found in the order they came)."""
    out, at = [], 0
    for m in head:
        key = content_key(m)
        found = next((j for j in range(at, len(keys)) if keys[j] == key), None)
        if found is None:
            out.append(m)
        else:
            at = found + 1
    return out


def _kept_tail(after: Sequence[ModelMessage], keys: Sequence[str]) -> int:
    """How many of the messages after a compaction's message are its verbatim tail: the longest
    run from their start that is the archive's end. What follows is new, even where the same words
    came earlier ("go on" typed again)."""
    if not keys:
        return 0
    mine = [content_key(m) for m in after[:len(keys)]]
    for n in range(len(mine), 0, -1):
        if mine[n - 1] == keys[-1] and mine[:n] == list(keys[len(keys) - n:]):
            return n
    return 0


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
