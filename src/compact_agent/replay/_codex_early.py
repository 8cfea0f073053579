"""Codex's first rollouts, laid out as today's.

The first releases of Codex CLI wrote a rollout as a line of session metadata (``id``, ``timestamp``,
``instructions``), then the response items bare, with ``{"record_type": "state"}`` lines between: no
``{timestamp, type, payload}`` envelope, no token counts. `is_early_rollout` recognises such a file
among lines no importer claims, and `enveloped` lays it out as today's records (the metadata a
``session_meta`` record, each item a ``response_item``), which `_codex.import_codex` then reads as any
other rollout.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: The response items a bare line of an early rollout may be.
ITEM_TYPES = frozenset({
    "message", "reasoning", "function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output",
    "local_shell_call", "local_shell_call_output", "web_search_call", "tool_search_call", "tool_search_output",
})


def is_early_rollout(records: list[Mapping[str, Any]], sniff: int) -> bool:
    """A rollout of Codex's first releases: a first line of session metadata (``id``, ``timestamp``,
    ``instructions``), then the response items as they are, with ``{"record_type": "state"}`` lines
    between; no envelope, no token counts."""
    first = records[0] if records else {}
    return ("id" in first and "timestamp" in first and "type" not in first
            and any(r.get("type") in ITEM_TYPES and "payload" not in r for r in records[1:sniff]))


def enveloped(records: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """An early rollout laid out as today's: its metadata a ``session_meta`` record (its
    ``instructions`` as the base instructions), each item a ``response_item``."""
    first = records[0]
    meta = {**first, "base_instructions": first.get("instructions")}
    out: list[Mapping[str, Any]] = [{"type": "session_meta", "timestamp": first.get("timestamp"), "payload": meta}]
    for record in records[1:]:
        if "record_type" not in record:
            out.append({"type": "response_item", "timestamp": record.get("timestamp"), "payload": record})
    return out

