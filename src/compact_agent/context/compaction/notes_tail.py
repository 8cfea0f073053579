"""The verbatim tail a session-memory compaction keeps after the notes.

The notes (memory.py) stand in for what they cover; after them the newest messages are kept as
they are: at least `memory_min_tokens` and `memory_min_text_messages` (prompts and answers a person
would read), at most `memory_max_tokens`, never reaching past a previous summary, and never
separating a tool call from its result or splitting the parts of one response. The thrash guard's
escalation keeps a smaller one (`escalated_tail`). Pure functions of the history and the limits.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart

from ..plumbing import rounds, tokens
from ..plumbing.settings import Limits
from . import summary


def has_text(m: ModelMessage) -> bool:
    """A message a person would read: a user prompt or assistant text (not only calls or results)."""
    if isinstance(m, ModelResponse):
        return any(isinstance(p, TextPart) and p.content.strip() for p in m.parts)
    return rounds.has_user_text(m)


def keep_index(messages: Sequence[ModelMessage], last_covered: int | None, limits: Limits) -> int:
    """First message kept verbatim after the notes (pure; `last_covered` None or -1: nothing covered).

    Starts after the last covered message and extends backwards until `memory_min_tokens` and
    `memory_min_text_messages` are kept, stopping before `memory_max_tokens` and never reaching
    past a previous summary (what precedes it is already in the notes). Then it moves back so no
    tool call is separated from its result and no run of response messages (parts of one streamed
    response) is split; correctness wins over the cap. The newest request is always kept.
    """
    n = len(messages)
    if n == 0:
        return 0
    start = max(0, min(n, (last_covered if last_covered is not None else -1) + 1))
    floor = max((i + 1 for i, m in enumerate(messages) if summary.is_summary(m)), default=0)
    floor = min(floor, start)
    i = start
    kept = tokens.estimate(messages[i:])
    texts = sum(1 for m in messages[i:] if has_text(m))
    while i > floor and (kept < limits.memory_min_tokens or texts < limits.memory_min_text_messages):
        cost = tokens.message_tokens(messages[i - 1])
        if kept + cost > limits.memory_max_tokens:
            break
        i -= 1
        kept += cost
        texts += has_text(messages[i])
    i = min(i, n - 1)
    safe = rounds.safe_cuts(messages)
    while i > 0 and (not safe[i] or (isinstance(messages[i], ModelResponse)
                                     and isinstance(messages[i - 1], ModelResponse))):
        i -= 1
    return i


def escalated_tail(limits: Limits, level: int) -> Limits:
    """The thrash guard's escalation (a compaction too soon after the last) keeps a smaller tail."""
    if level <= 0:
        return limits
    return dataclasses.replace(limits, memory_min_tokens=limits.memory_min_tokens >> level,
                               memory_max_tokens=limits.memory_max_tokens >> level)
