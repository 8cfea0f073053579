"""Which of a Codex rollout's user-role messages a person typed, and which open every request.

Codex records in the user's role, beside what was typed, context its harness writes: the project's
AGENTS.md instructions and the environment (working folder, sandbox, shell), at the start and again
later in some sessions. What a person typed is recorded twice: as the ``response_item`` the model
saw and as an ``event_msg`` of type ``user_message`` (for the UI); the harness's context only once.
So where a rollout holds such events, a user message without one is the harness's: not the person's
words, which every strategy must keep. Matching is by the text, or in a redacted rollout
(``[REDACTED_TEXT len=N sha=H]`` against ``[REDACTED_MESSAGE len=N sha=H]``) by length and hash. A
rollout without a single such event is left to the prefixes retention knows (``<environment_context>``,
``# AGENTS.md instructions for``, ...).

The harness's context before the first typed message is Codex's initial context, which it puts
back at the head of every compacted history (codex-rs core/src/compact.rs: the initial context, then
the user's messages, then the summary). With the instructions it is the rollout's fixed prompt: sent
with every request of every strategy (`Transcript.opening_context`, sizing.py), not conversation a
compaction drops.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._redaction import REDACTION_RE


def key(text: str) -> str:
    """What a user message and its ``user_message`` event have in common: the stripped text, or a
    lone redaction marker's length and hash (the two markers differ in kind)."""
    flat = text.strip()
    marker = REDACTION_RE.fullmatch(flat)
    return f"redacted {marker.group(2)} {marker.group(3).lower()}" if marker else flat


def typed_keys(records: list[Mapping[str, Any]]) -> frozenset[str] | None:
    """The keys of every ``user_message`` event's text, or None when the rollout records none."""
    found: set[str] = set()
    seen = False
    for record in records:
        payload = record.get("payload")
        if record.get("type") == "event_msg" and isinstance(payload, Mapping) and payload.get("type") == "user_message":
            seen = True
            if isinstance(message := payload.get("message"), str) and message.strip():
                found.add(key(message))
    return frozenset(found) if seen else None
