"""Shared machinery for the transcript importers: conversation assembly, validity repair, usage, time.

Every format importer feeds parts into a :class:`ConversationBuilder` in source order and lets
:meth:`ConversationBuilder.finish` turn that raw stream into a *provider-valid* conversation. The
repair lives here, once, because each source breaks validity in its own way (Claude Code interleaves
tool results with the lines of one response, Codex records developer messages between a call and its
output, trajectories end on a call that never got a result) and the result must satisfy one contract:
``pydantic_ai.messages.repair_messages`` finds nothing to change.

What a transcript recorded of times and token usage is read in `_recorded.py`; the repair that makes
the assembled stream valid is `_validity.py`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
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

from ._recorded import unmeasured_usage
from ._validity import is_blank_part, make_valid

IMAGE_PLACEHOLDER = "[image]"
"""Stands in for an image anywhere in a transcript.

Transcripts store images as base64 (Claude Code) or data URLs (Codex, up to 6.8 MB each here); keeping
them would make a replay corpus huge while adding nothing a compaction strategy can read, so images
become this short marker. Token counts of replays are therefore lower than the recorded ones for
turns that carried images.
"""


# --- conversation assembly -----------------------------------------------------------------------------


def malformed_words(exc: Exception) -> str:
    """What an importer found wrong with an entry, in words: a field it lacks, a field of another
    kind than the format has, or the importer's own message."""
    if isinstance(exc, KeyError) and exc.args:
        return f"it has no field {exc.args[0]!r}"[:200]
    if isinstance(exc, (TypeError, AttributeError)):
        return "a field holds another kind of value than the format has there"
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else "a field holds a value the format does not have"


class BadField(ValueError):
    """A field whose value the replay cannot read, named in words (`checked`)."""


def checked(part: Any) -> Any:
    """`part`, when its fields hold what the replay reads there; else a ValueError naming the field,
    which the importer's loop counts as an entry of an unexpected shape (`skip_malformed`). A tool
    call whose input was a list or a number, a name or id that was a number, got through the import
    and failed the replay of the whole file."""
    what = "tool call" if isinstance(part, ToolCallPart) else "tool result"
    if isinstance(part, (ToolCallPart, ToolReturnPart)):
        for name in ("tool_name", "tool_call_id"):
            if not isinstance(getattr(part, name), str):
                raise BadField(f"a {what}'s {name.removeprefix('tool_').replace('call_', '')} is "
                                 f"{_kind(getattr(part, name))}, not text")
    if isinstance(part, ToolCallPart) and not isinstance(part.args, (str, dict, type(None))):
        raise BadField(f"a tool call's input is {_kind(part.args)}, not an object")
    if isinstance(part, (TextPart, ThinkingPart)) and not isinstance(part.content, str):
        raise BadField(f"a response's text is {_kind(part.content)}, not text")
    return part


def wrong_kind(field: str, value: Any, wanted: str) -> BadField:
    """The error of a field whose value is not of the kind the format has there, in words: `a
    line's type is a list, not text` (`skip_malformed` names it in the transcript's warning)."""
    return BadField(f"{field} is {_kind(value)}, not {wanted}")


def _kind(value: Any) -> str:
    return {list: "a list", dict: "an object", bool: "true or false", type(None): "missing", str: "text"}.get(
        type(value), "a number" if isinstance(value, (int, float)) else "another kind of value")


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
    unknown_kinds: Counter[str] = field(default_factory=Counter)  # of the skipped, the entries of kinds not known here
    warnings: list[str] = field(default_factory=list)
    compactions: list[dict[str, Any]] = field(default_factory=list)
    harness: set[str] = field(default_factory=set)  # user-role texts the agent's harness wrote, stripped
    opening: set[str] = field(default_factory=set)  # of those, the first request's the agent re-sends (fixed prompt)
    filler_chars: int = 0  # characters of deterministic filler standing for redacted text (Codex)
    subagent: bool = False  # the file is the conversation of an agent another session started (its own file)
    tool_names: dict[str, str] = field(default_factory=dict)
    _anchors: list[tuple[dict[str, Any], ModelRequestPart | ModelResponsePart | None]] = field(
        default_factory=list
    )
    _waiting_anchor: list[dict[str, Any]] = field(default_factory=list)
    _malformed: int = 0
    _malformed_at: int = -1  # where in `warnings` the line about them is
    _first_malformed: str = ""  # what was wrong with the first of them

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
            checked(ToolReturnPart(
                tool_name=self.tool_names.get(call_id, "unknown_tool"),
                content=content,
                tool_call_id=call_id,
                timestamp=timestamp or self.fallback_time,
                outcome="failed" if failed else "success",
            )),
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
        """Count an entry whose shape broke an importer; one warning says how many, and what was
        wrong with the first, in words."""
        self.skipped += 1
        self._malformed += 1
        if self._malformed == 1:
            self._first_malformed = malformed_words(exc)
            self._malformed_at = len(self.warnings)
            self.warnings.append("")
        count = f"{self._malformed:,} {'entry' if self._malformed == 1 else 'entries'}"
        self.warnings[self._malformed_at] = f"skipped {count} of an unexpected shape (the first: {self._first_malformed})"

    def skip_kind(self, kind: Any) -> None:
        """Count an entry of a kind the importer does not know; :meth:`finish` names the kinds in one warning."""
        self.skipped += 1
        self.unknown_kinds[kind[:60] if isinstance(kind, str) and kind.strip() else "without a kind"] += 1

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
        if self.unknown_kinds:
            self.warnings.append(unknown_kinds_note(self.unknown_kinds))
        located = {id(part): index for index, message in enumerate(messages) for part in message.parts}
        for record in self._waiting_anchor:
            record["message_index"] = len(messages)
        for record, part in self._anchors:
            record["message_index"] = located.get(id(part))
            if record["message_index"] is None:
                self.warnings.append(f"compaction at {record.get('timestamp')} lost its anchor message")
        return messages


def unknown_kinds_note(kinds: Counter[str]) -> str:
    """`skipped 3 entries of kinds the analyzer does not know (additional_tools 1, …)`: the most frequent first."""
    n, named = sum(kinds.values()), [f"{kind} {count:,}" for kind, count in kinds.most_common()]
    listed = ", ".join(named[:6]) + (f" and {len(named) - 6} more" if len(named) > 6 else "")
    return (f"skipped {counted(n, 'entry', 'entries')} of {'a kind' if len(named) == 1 else 'kinds'} the analyzer does "
            f"not know ({listed}): what {'it' if n == 1 else 'they'} held, if the model saw it, is missing from the replay")


def counted(n: int, one: str, many: str | None = None) -> str:
    """`1 line`, `2 lines`, `1,302 redaction markers`: a count with its noun, for the warnings."""
    return f"{n:,} {one if n == 1 else many or one + 's'}"


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

