"""The repair every imported conversation goes through: a provider-valid conversation, whatever the source broke.

Blank parts dropped, tool results put with their calls, neighbours of one role merged, a call that
never got a result closed: afterwards ``pydantic_ai.messages.repair_messages`` finds nothing to change.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

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
)

from ._recorded import has_recorded_usage
from ._words import plural


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
            for call in message.parts:
                if isinstance(call, ToolCallPart):
                    open_calls[call.tool_call_id] = (index, call)
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
            request_parts = [p for p in message.parts if id(p) not in dropped_returns]
            if request_parts:
                rebuilt.append(
                    dataclasses.replace(message, parts=request_parts)
                    if len(request_parts) != len(message.parts) else message
                )

    if dangling:
        shown = ", ".join(dangling[:5]) + (", …" if len(dangling) > 5 else "")
        notes.append(f"dropped {plural(len(dangling), 'tool call')} that never got a result ({shown})")
    if orphans:
        notes.append(f"dropped {plural(orphans, 'tool result')} without a preceding open call")
    if late:
        notes.append(f"moved {plural(late, 'tool result')} recorded after a later response next to their call")
    if lost_usage:
        notes.append(f"dropped {plural(lost_usage, 'response')} left empty (their recorded usage is lost)")
    return _merge_neighbours(rebuilt), notes
