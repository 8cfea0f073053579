"""Whether the provider's prompt cache still holds this conversation's prefix.

A provider keeps a cached prefix for a while after its last use (Anthropic about five minutes,
DeepSeek about an hour: `cache_ttl_s`). When the newest response is older than that, the next
request is sent uncached whatever it holds: clearing old tool results (microcompact's "time"
trigger) or compacting then costs no cache hit, since there is none left to lose.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from pydantic_ai.messages import ModelMessage, ModelResponse

__all__ = ["cache_expired"]


def _aware(t: datetime) -> datetime:
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)  # a naive time is taken as UTC


def cache_expired(messages: Sequence[ModelMessage], now: datetime, ttl_s: float) -> bool:
    """The newest response in `messages` is more than `ttl_s` seconds old: the cached prefix is
    gone. False without a response (nothing was cached yet to lose)."""
    newest = next((m.timestamp for m in reversed(messages) if isinstance(m, ModelResponse)), None)
    return newest is not None and (_aware(now) - _aware(newest)).total_seconds() > ttl_s
