"""What a transcript recorded besides its messages: when (timestamps) and the provider's token usage.

Formats spell usage differently (input/prompt tokens, cache reads and writes under several names);
each importer hands its mapping to `usage_from_mapping`, and a response without one is marked as
unmeasured so the analyzer does not take zero for a measurement. Counts no provider reports for one
request (a damaged or hand-made file) are not believed either (`set_aside_absurd_usage`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
)
from pydantic_ai.usage import RequestUsage

from ._words import plural

MAX_BELIEVED_TOKENS = 10**9
"""More tokens than any provider reports for one request (the largest windows hold a few million).
A count above it is a damaged or hand-made file: believed, an input of 10**300 tokens priced a request
at a 60-digit cost that broke the tables, and one of 10**400 stopped the analysis (no float holds it)."""


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
    """First count found under ``keys`` (dotted paths allowed), else 0: usage blocks vary by provider.
    A negative number is no count (a damaged or hand-made file): taken as one, it made costs negative."""
    for key in keys:
        value: Any = mapping
        for step in key.split("."):
            value = value.get(step) if isinstance(value, Mapping) else None
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
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


def set_aside_absurd_usage(messages: Sequence[ModelMessage]) -> str | None:
    """Treat as unrecorded the usage of each response that counts more than MAX_BELIEVED_TOKENS in one
    of its figures (its size is then fitted, its output estimated, as for a response without usage);
    the warning saying so, or None when every count is believable."""
    n = 0
    for m in messages:
        if isinstance(m, ModelResponse) and max(m.usage.input_tokens, m.usage.output_tokens, m.usage.cache_read_tokens,
                                                m.usage.cache_write_tokens) > MAX_BELIEVED_TOKENS:
            m.usage = unmeasured_usage()
            n += 1
    if not n:
        return None
    return (f"the recorded usage of {plural(n, 'response')} counts more than {MAX_BELIEVED_TOKENS:,} tokens, more "
            f"than any provider reports for one request: not believed, {'that request is' if n == 1 else 'those are'} "
            "replayed as without recorded usage (size fitted, output estimated)")
