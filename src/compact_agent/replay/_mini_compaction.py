"""mini-swe-agent's compaction, as a trajectory records it (off by default).

Read in SWE-agent/mini-swe-agent at commit 2aaed7fb3e5ae2963431c73237763129173f0e56
(src/minisweagent/agents/compaction.py and agents/default.py; in the code index, not in the
repository's main history as fetched on 2026-12-05, whose newest commit, a83fcae of 2026-07-22, has no
compaction): with ``agent.compaction.enabled``, before a model call that would not fit, the agent asks
the model for a checkpoint of the messages from ``compacted_until`` on and from then sends
``[messages[0], <user: "<conversation_summary>…</conversation_summary>\\nContinue from this
checkpoint.">, *messages[compacted_until:]]`` (``DefaultAgent._messages_for_model``). ``messages``
itself keeps every message and no summary; the trajectory says what happened in a top-level
``compaction`` object: ``{summary, compacted_until, records: [{summary, compacted_until, reason
("auto" | "overflow"), estimated_tokens_before, estimated_tokens_after, cost, timestamp}],
active_estimated_tokens, context_limit}`` (written, with no records, when compaction is off too). The
summary calls are billed (``info.model_stats.compaction_calls``) but are in no message.

So a compaction is recorded (`with_compactions`) before the first reply whose ``extra.timestamp`` is not
earlier than the record's (without timestamps, the first reply after ``compacted_until``): the fit of
our sizes to the recorded ones stops there, as at other agents' compactions, since the requests after
it were smaller than the whole history the replay holds. Its summary is nowhere in the messages, so
it is neither replayed nor taken for words anyone typed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._common import ConversationBuilder, counted

COMPACTED = "_mini_swe_agent_compaction"  # the role of the marker `with_compactions` puts in the messages


def with_compactions(messages: list[Any], document: Mapping[str, Any], builder: ConversationBuilder) -> list[Any]:
    """``messages`` with a marker before the reply each recorded compaction preceded, and a note."""
    state = document.get("compaction")
    records = state.get("records") if isinstance(state, Mapping) else None
    records = [r for r in records if isinstance(r, Mapping)] if isinstance(records, list) else []
    if not records:
        return messages
    at: dict[int, list[Mapping[str, Any]]] = {}
    start = 0
    for record in records:
        index = _reply_after(messages, record, start)
        at.setdefault(index, []).append(record)
        start = index
    out: list[Any] = []
    for i, message in enumerate([*messages, None]):
        out.extend({"role": COMPACTED, "record": record} for record in at.get(i, []))
        if message is not None:
            out.append(message)
    n = len(records)
    builder.warnings.append(
        f"mini-swe-agent compacted this run {counted(n, 'time')}: {'its summary is' if n == 1 else 'their summaries are'}"
        " not among the messages, so every strategy replays the whole history, and the sizes recorded after the"
        " first are not used to fit ours")
    return out


def recorded(builder: ConversationBuilder, marker: Mapping[str, Any]) -> None:
    """The compaction a marker stands for, anchored at the next message the builder is given."""
    record = marker.get("record")
    record = record if isinstance(record, Mapping) else {}
    summary = record.get("summary")
    builder.record_compaction({
        "source": "mini-swe-agent", "kind": "summary", "trigger": record.get("reason"),
        "timestamp": record.get("timestamp"), "message_index": None,
        "summary_chars": None,  # not among the messages: nothing to leave out of the replay
        "recorded_summary_chars": len(summary) if isinstance(summary, str) else None,
        "compacted_until": record.get("compacted_until"), "pre_tokens": record.get("estimated_tokens_before"),
    })


def _reply_after(messages: list[Any], record: Mapping[str, Any], start: int) -> int:
    """The index of the first reply from ``start`` the compaction came before; len(messages) if none."""
    stamp = record.get("timestamp")
    until = record.get("compacted_until")
    for i in range(start, len(messages)):
        message = messages[i]
        if not isinstance(message, Mapping) or not (message.get("role") == "assistant"
                                                    or message.get("object") == "response"):
            continue
        extra = message.get("extra")
        when = extra.get("timestamp") if isinstance(extra, Mapping) else None
        if isinstance(stamp, (int, float)) and isinstance(when, (int, float)):
            if when >= stamp:
                return i
        elif isinstance(until, int) and i > until:
            return i
    return len(messages)
