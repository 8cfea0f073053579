"""Shared machinery for the transcript importers: conversation assembly, validity repair, usage, time.

Every format importer feeds parts into a :class:`ConversationBuilder` in source order and lets
:meth:`ConversationBuilder.finish` turn that raw stream into a *provider-valid* conversation. The
repair lives here, once, because each source breaks validity in its own way (Claude Code interleaves
tool results with the lines of one response, Codex records developer messages between a call and its
output, trajectories end on a call that never got a result) and the result must satisfy one contract:
``pydantic_ai.messages.repair_messages`` finds nothing to change.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelRequestPart,
    ModelResponse,
    ModelResponsePart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.usage import RequestUsage

IMAGE_PLACEHOLDER = "[image]"
"""Stands in for an image anywhere in a transcript.

Transcripts store images as base64 (Claude Code) or data URLs (Codex, up to 6.8 MB each here); keeping
them would make a replay corpus huge while adding nothing a compaction strategy can read, so images
become this short marker. Token counts of replays are therefore lower than the recorded ones for
turns that carried images.
"""


def parse_time(value: Any) -> datetime | None:
    """Parse an ISO-8601 string (``Z`` suffix allowed) or a Unix timestamp into an aware UTC datetime."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        try:
            return datetime.fromtimestamp(float(value), tz=UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(value, str) and value:
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return None


def _int(mapping: Mapping[str, Any], *keys: str) -> int:
    """First integer found under ``keys`` (dotted paths allowed), else 0: usage blocks vary by provider."""
    for key in keys:
        value: Any = mapping
        for step in key.split("."):
            value = value.get(step) if isinstance(value, Mapping) else None
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return 0


def usage_from_mapping(raw: Any) -> RequestUsage | None:
    """Normalise a recorded usage block to ``RequestUsage`` whose ``input_tokens`` include cached tokens.

    Three conventions occur in the data:

    * Anthropic (Claude Code): ``input_tokens`` *excludes* ``cache_read_input_tokens`` and
      ``cache_creation_input_tokens``, so the total prompt is their sum.
    * OpenAI chat / DeepSeek: ``prompt_tokens`` is the total; cached tokens are
      ``prompt_cache_hit_tokens`` (DeepSeek) or ``prompt_tokens_details.cached_tokens``.
    * OpenAI Responses / Codex: ``input_tokens`` is the total, ``cached_input_tokens`` the cached part.
    """
    if not isinstance(raw, Mapping):
        return None
    if "prompt_tokens" in raw or "completion_tokens" in raw:
        return RequestUsage(
            input_tokens=_int(raw, "prompt_tokens"),
            cache_read_tokens=_int(raw, "prompt_cache_hit_tokens", "prompt_tokens_details.cached_tokens"),
            output_tokens=_int(raw, "completion_tokens"),
            output_reasoning_tokens=_int(raw, "completion_tokens_details.reasoning_tokens"),
        )
    if "cache_read_input_tokens" in raw or "cache_creation_input_tokens" in raw:
        cache_read = _int(raw, "cache_read_input_tokens")
        cache_write = _int(raw, "cache_creation_input_tokens")
        return RequestUsage(
            input_tokens=_int(raw, "input_tokens") + cache_read + cache_write,
            cache_read_tokens=cache_read,
            cache_write_tokens=cache_write,
            cache_write_1h_tokens=_int(raw, "cache_creation.ephemeral_1h_input_tokens"),
            output_tokens=_int(raw, "output_tokens"),
        )
    if "input_tokens" in raw or "output_tokens" in raw:
        return RequestUsage(
            input_tokens=_int(raw, "input_tokens"),
            cache_read_tokens=_int(raw, "cached_input_tokens", "input_tokens_details.cached_tokens"),
            output_tokens=_int(raw, "output_tokens"),
            output_reasoning_tokens=_int(
                raw, "reasoning_output_tokens", "output_tokens_details.reasoning_tokens"
            ),
        )
    return None


def unmeasured_usage() -> RequestUsage:
    """Usage for a response whose source recorded none: ``unmeasured_requests=1`` says so explicitly."""
    return RequestUsage(unmeasured_requests=1)


def has_recorded_usage(response: ModelResponse) -> bool:
    """Whether a response carries usage taken from its source (not the unmeasured placeholder)."""
    return response.usage.unmeasured_requests == 0 and (
        response.usage.input_tokens > 0 or response.usage.output_tokens > 0
    )


# --- conversation assembly -----------------------------------------------------------------------------


@dataclass
class ConversationBuilder:
    """Collects parts in source order and produces a provider-valid message list.

    Importers call :meth:`add_request_part` / :meth:`add_response` in the order the source records
    things; adjacent request parts collapse into one ``ModelRequest`` automatically. :meth:`finish`
    then enforces the invariants (see :func:`make_valid`).
    """

    fallback_time: datetime
    messages: list[ModelMessage] = field(default_factory=list)
    skipped: int = 0
    warnings: list[str] = field(default_factory=list)
    compactions: list[dict[str, Any]] = field(default_factory=list)
    harness: set[str] = field(default_factory=set)  # user-role texts the agent's harness wrote, stripped
    tool_names: dict[str, str] = field(default_factory=dict)
    _anchors: list[tuple[dict[str, Any], ModelRequestPart | ModelResponsePart | None]] = field(
        default_factory=list
    )
    _waiting_anchor: list[dict[str, Any]] = field(default_factory=list)
    _malformed: int = 0

    def add_request_part(self, part: ModelRequestPart, timestamp: datetime | None = None) -> None:
        """Append a part to the trailing ``ModelRequest`` (opening one after a response)."""
        self._claim_anchor(part)
        last = self.messages[-1] if self.messages else None
        if isinstance(last, ModelRequest):
            last.parts = [*last.parts, part]
            if timestamp is not None:
                last.timestamp = timestamp
        else:
            self.messages.append(ModelRequest(parts=[part], timestamp=timestamp or self.fallback_time))

    def add_user_text(self, text: str, timestamp: datetime | None = None, *, harness: bool = False
                      ) -> UserPromptPart | None:
        """Append user text unless it is blank (providers reject empty user content); `harness` marks
        text the agent's harness wrote in the user's role (skill bodies, observations, command output),
        which retention does not count as the person's words."""
        if not text.strip():
            return None
        if harness:
            self.harness.add(text.strip())
        part = UserPromptPart(text, timestamp=timestamp or self.fallback_time)
        self.add_request_part(part, timestamp)
        return part

    def add_tool_return(
        self, call_id: str, content: str, timestamp: datetime | None = None, *, failed: bool = False
    ) -> None:
        """Append a tool result; its tool name comes from the call recorded earlier under the same id."""
        self.add_request_part(
            ToolReturnPart(
                tool_name=self.tool_names.get(call_id, "unknown_tool"),
                content=content,
                tool_call_id=call_id,
                timestamp=timestamp or self.fallback_time,
                outcome="failed" if failed else "success",
            ),
            timestamp,
        )

    def add_response(self, parts: list[ModelResponsePart], **fields: Any) -> ModelResponse | None:
        """Append a ``ModelResponse``; blank text and empty thinking are dropped, empty responses skipped."""
        kept = [part for part in parts if not is_blank_part(part)]
        for part in kept:
            if isinstance(part, ToolCallPart):
                self.tool_names[part.tool_call_id] = part.tool_name
        if not kept:
            return None
        self._claim_anchor(kept[0])
        if fields.get("timestamp") is None:
            fields["timestamp"] = self.fallback_time
        if fields.get("usage") is None:
            fields["usage"] = unmeasured_usage()
        response = ModelResponse(parts=kept, **fields)
        self.messages.append(response)
        return response

    def skip_malformed(self, exc: Exception) -> None:
        """Count an entry whose shape broke an importer; the first error is reported for debugging."""
        self.skipped += 1
        self._malformed += 1
        if self._malformed == 1:
            self.warnings.append(f"skipped malformed entries, first: {type(exc).__name__}: {exc}")

    def last_response(self) -> ModelResponse | None:
        for message in reversed(self.messages):
            if isinstance(message, ModelResponse):
                return message
        return None

    def record_compaction(
        self, record: dict[str, Any], part: ModelRequestPart | ModelResponsePart | None = None
    ) -> None:
        """Record a compaction; its ``message_index`` is resolved in :meth:`finish`.

        With ``part`` the index is that of the message holding the part (Claude Code: the summary);
        without, it is the message holding the next part added (Codex: the first post-compaction one).
        """
        self.compactions.append(record)
        if part is not None:
            self._anchors.append((record, part))
        else:
            self._waiting_anchor.append(record)

    def _claim_anchor(self, part: ModelRequestPart | ModelResponsePart) -> None:
        for record in self._waiting_anchor:
            self._anchors.append((record, part))
        self._waiting_anchor.clear()

    def finish(self) -> list[ModelMessage]:
        """Make the conversation valid and resolve compaction indices (by part identity, merges included)."""
        messages, notes = make_valid(self.messages)
        self.warnings.extend(notes)
        located = {id(part): index for index, message in enumerate(messages) for part in message.parts}
        for record in self._waiting_anchor:
            record["message_index"] = len(messages)
        for record, part in self._anchors:
            record["message_index"] = located.get(id(part))
            if record["message_index"] is None:
                self.warnings.append(f"compaction at {record.get('timestamp')} lost its anchor message")
        return messages


def is_blank_part(part: ModelResponsePart) -> bool:
    """Whitespace-only text (Claude Code streams a ``"\\n\\n"`` block first) and empty thinking."""
    if isinstance(part, TextPart):
        return not part.content.strip()
    if isinstance(part, ThinkingPart):
        return not part.content.strip() and not part.signature
    return False


def _partition(parts: Iterable[ModelRequestPart]) -> list[ModelRequestPart]:
    """Tool results first (stable): providers require them to lead the message answering a turn."""
    parts = list(parts)
    return [p for p in parts if isinstance(p, ToolReturnPart)] + [
        p for p in parts if not isinstance(p, ToolReturnPart)
    ]


def _synthetic(response: ModelResponse) -> bool:
    """Mirrors pydantic-ai: responses with no API identity may be merged when adjacent."""
    return (
        response.provider_response_id is None
        and response.provider_name is None
        and response.model_name is None
    )


def _merge_neighbours(messages: list[ModelMessage]) -> list[ModelMessage]:
    """Merge adjacent requests, and adjacent synthetic responses, exactly where pydantic-ai would."""
    out: list[ModelMessage] = []
    for message in messages:
        last = out[-1] if out else None
        if isinstance(message, ModelRequest) and isinstance(last, ModelRequest):
            out[-1] = ModelRequest(
                parts=_partition([*last.parts, *message.parts]),
                timestamp=message.timestamp or last.timestamp,
            )
        elif (
            isinstance(message, ModelResponse)
            and isinstance(last, ModelResponse)
            and _synthetic(last)
            and _synthetic(message)
        ):
            out[-1] = dataclasses.replace(
                last, parts=[*last.parts, *message.parts], usage=last.usage + message.usage
            )
        elif isinstance(message, ModelRequest):
            out.append(dataclasses.replace(message, parts=_partition(message.parts)))
        else:
            out.append(message)
    return out


def make_valid(raw: list[ModelMessage]) -> tuple[list[ModelMessage], list[str]]:
    """Enforce the conversation invariants, returning the repaired list and what was changed.

    * every ``ToolCallPart`` is answered by exactly one ``ToolReturnPart`` in the request *right after*
      its response (stricter than pydantic-ai, as Anthropic requires); a result that arrives later is
      moved there, a call with no result is dropped, a result with no open call is dropped;
    * tool results lead their request; adjacent requests are merged; no message is empty.
    """
    notes: list[str] = []
    messages = _merge_neighbours([m for m in raw if m.parts])

    open_calls: dict[str, tuple[int, ToolCallPart]] = {}
    answered: set[int] = set()
    moved: dict[int, list[ToolReturnPart]] = {}
    dropped_returns: set[int] = set()
    orphans = late = 0
    for index, message in enumerate(messages):
        if isinstance(message, ModelResponse):
            for part in message.parts:
                if isinstance(part, ToolCallPart):
                    open_calls[part.tool_call_id] = (index, part)
            continue
        for part in message.parts:
            if not isinstance(part, ToolReturnPart):
                continue
            owner = open_calls.pop(part.tool_call_id, None)
            if owner is None:
                orphans += 1
                dropped_returns.add(id(part))
                continue
            answered.add(id(owner[1]))
            if owner[0] != index - 1:
                late += 1
                dropped_returns.add(id(part))
                moved.setdefault(owner[0], []).append(part)

    dangling: list[str] = []
    rebuilt: list[ModelMessage] = []
    lost_usage = 0
    for index, message in enumerate(messages):
        if isinstance(message, ModelResponse):
            parts = [p for p in message.parts if not isinstance(p, ToolCallPart) or id(p) in answered]
            dangling += [
                p.tool_call_id for p in message.parts if isinstance(p, ToolCallPart) and id(p) not in answered
            ]
            if parts:
                rebuilt.append(
                    dataclasses.replace(message, parts=parts) if len(parts) != len(message.parts) else message
                )
            elif has_recorded_usage(message):
                lost_usage += 1
            if index in moved:
                rebuilt.append(ModelRequest(parts=list(moved[index]), timestamp=message.timestamp))
        else:
            parts = [p for p in message.parts if id(p) not in dropped_returns]
            if parts:
                rebuilt.append(
                    dataclasses.replace(message, parts=parts) if len(parts) != len(message.parts) else message
                )

    if dangling:
        shown = ", ".join(dangling[:5]) + (", …" if len(dangling) > 5 else "")
        notes.append(f"dropped {len(dangling)} tool calls that never got a result ({shown})")
    if orphans:
        notes.append(f"dropped {orphans} tool results without a preceding open call")
    if late:
        notes.append(f"moved {late} tool results recorded after a later response next to their call")
    if lost_usage:
        notes.append(f"dropped {lost_usage} responses left empty (their recorded usage is lost)")
    return _merge_neighbours(rebuilt), notes


def text_of_blocks(content: Any, *, text_keys: tuple[str, ...] = ("text",)) -> str:
    """Flatten string-or-block-list content to text; image blocks become :data:`IMAGE_PLACEHOLDER`."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Mapping):
        content = [content]
    if not isinstance(content, list):
        return str(content)
    pieces: list[str] = []
    for block in content:
        if isinstance(block, str):
            pieces.append(block)
        elif isinstance(block, Mapping):
            kind = str(block.get("type", ""))
            if "image" in kind:
                pieces.append(IMAGE_PLACEHOLDER)
            else:
                for key in text_keys:
                    value = block.get(key)
                    if isinstance(value, str):
                        pieces.append(value)
                        break
    return "\n".join(pieces)
