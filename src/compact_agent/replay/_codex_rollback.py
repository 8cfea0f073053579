"""Codex rollbacks: turns a rollout keeps on disk that the model never saw again.

Rolling a thread back (the app server's ``thread/rollback``, the TUI's backtrack) writes an
``event_msg`` of type ``thread_rolled_back`` with ``num_turns``; the items of those turns stay in the
file above it. When Codex resumes a rollout it rebuilds the model's history by cutting it at the start
of the ``num_turns``-th user turn from the end, and every later request carries only what is left. So
the importer leaves those items out too, with the token counts recorded among them, and says so.

A user turn starts at a message in the user's role that is not the harness's context (environment
context, AGENTS.md and user instructions, skills, records of the person's own shell commands, abort and
subagent notices), or at another agent's message in a multi-agent thread. The context Codex injected
just above the cut turn (permission and mode notes, environment context) goes with it, as Codex's
current releases do; nothing before the first user turn is ever cut. Redacted text cannot be told
apart, so there every user message starts a turn. A rollback reaches back as far as the last
compaction: past it, what Codex cut was the compacted history, which is not among the imported messages.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._common import ConversationBuilder, counted

_CONTEXT_USER = (
    "<environment_context>", "<user_instructions>", "# agents.md instructions", "<skill>", "<skills_instructions>",
    "<user_shell_command>", "<turn_aborted>", "<subagent_notification>",
)  # fmt: skip
_CONTEXT_DEVELOPER = (
    "<permissions instructions>", "<model_switch>", "<collaboration_mode>", "<personality_spec>", "<token_budget>",
    "<realtime_conversation>", "<skills_instructions>",
)  # fmt: skip


def without_rolled_back(records: list[Mapping[str, Any]], builder: ConversationBuilder) -> list[Mapping[str, Any]]:
    """`records` less the history items (and token counts) of every turn a later rollback dropped."""
    dropped: set[int] = set()
    live: list[int] = []  # history items and token counts since the last compaction, not yet dropped
    turns = 0
    for index, record in enumerate(records):
        kind, payload = record.get("type"), record.get("payload")
        if not isinstance(payload, Mapping):
            continue
        if kind == "compacted":
            live = []
        elif kind in ("response_item", "inter_agent_communication") or (
                kind == "event_msg" and payload.get("type") == "token_count"):
            live.append(index)
        elif kind == "event_msg" and payload.get("type") == "thread_rolled_back":
            n = payload.get("num_turns")
            starts = [at for at, i in enumerate(live) if _starts_turn(records[i])]
            if not isinstance(n, int) or n <= 0 or not starts:
                continue
            cut = starts[-n] if n < len(starts) else starts[0]
            while cut > starts[0] and _injected_context(records[live[cut - 1]]):
                cut -= 1
            dropped.update(live[cut:])
            del live[cut:]
            turns += min(n, len(starts))
    if not dropped:
        return records
    items = sum(1 for i in dropped if records[i].get("type") != "event_msg")
    builder.warnings.append(
        f"left out {counted(items, 'item')} of {counted(turns, 'turn')} rolled back in Codex: the model never saw "
        f"{'it' if items == 1 else 'them'} again, so no strategy replays {'it' if items == 1 else 'them'}")
    return [record for i, record in enumerate(records) if i not in dropped]


def _texts(payload: Mapping[str, Any]) -> list[str]:
    content = payload.get("content")
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [b["text"] for b in content if isinstance(b, Mapping) and isinstance(b.get("text"), str)]


def _opens_with(texts: list[str], markers: tuple[str, ...]) -> bool:
    return any(text.lstrip().lower().startswith(markers) for text in texts)


def _message(record: Mapping[str, Any], role: str) -> Mapping[str, Any] | None:
    payload = record.get("payload")
    if (record.get("type") == "response_item" and isinstance(payload, Mapping)
            and payload.get("type") == "message" and payload.get("role") == role):
        return payload
    return None


def _starts_turn(record: Mapping[str, Any]) -> bool:
    if record.get("type") == "inter_agent_communication":
        return True
    user = _message(record, "user")
    return user is not None and not _opens_with(_texts(user), _CONTEXT_USER)


def _injected_context(record: Mapping[str, Any]) -> bool:
    """A message Codex put in the history ahead of a turn: a permission or mode note, or context."""
    user, developer = _message(record, "user"), _message(record, "developer")
    return ((user is not None and _opens_with(_texts(user), _CONTEXT_USER))
            or (developer is not None and _opens_with(_texts(developer), _CONTEXT_DEVELOPER)))
