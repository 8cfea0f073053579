"""What a provider's refusal of a request's `max_tokens` tells: the most the model writes.

The library's own requests (the summary, the session notes) ask for what the window leaves, at most
`max_output` (8,192 unless the caller says). Many models write less in one reply (local models,
older hosted ones), and a provider refuses a request that asks for more: DeepSeek "Invalid
max_tokens value, the valid range of max_tokens is [1, 4096]", OpenAI "This model supports at most
4096 completion tokens", Anthropic "max_tokens: 8192 > 4096, which is the maximum allowed number of
output tokens". Every compaction failed on it until the breaker stopped them. `output_limit` reads
the cap from those words; `within_output_limit` sends such a request again within it, once, and
says what it learned, so the caller asks for no more from then on.

A server that refuses `max_tokens` because prompt and answer would not fit its window ("maximum
context length") is a prompt too long (overflow.py), not an output cap: never read here.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from pydantic_ai.exceptions import ModelHTTPError

from .overflow import refusal_text

T = TypeVar("T")

_N = r"(\d[\d,]*)"
_CAP_RE = re.compile("|".join((
    rf"valid range of max_tokens is \[\d+, ?{_N}\]",  # DeepSeek
    rf"supports at most {_N} completion tokens",  # OpenAI
    rf"max_tokens: \d+ > {_N}, which is the maximum allowed number of output tokens",  # Anthropic
)), re.IGNORECASE)


def output_limit(error: BaseException) -> int | None:
    """The most the model writes in one reply, where `error` is a refusal (HTTP 400 or 422) of a
    request's `max_tokens` that says it; None for anything else."""
    if not isinstance(error, ModelHTTPError) or error.status_code not in (400, 422):
        return None
    match = _CAP_RE.search(refusal_text(error))
    group = next((g for g in match.groups() if g), None) if match else None
    most = int(group.replace(",", "")) if group else None
    return most if most is not None and most > 0 else None


async def within_output_limit(send: Callable[[dict[str, Any] | None], Awaitable[T]], settings: dict[str, Any] | None,
                              learned: Callable[[int], None] | None = None) -> T:
    """`send(settings)`; when the provider refuses its `max_tokens` as above the model's cap, tell
    `learned` the cap and send it once more asking for that much. Any other error is raised."""
    try:
        return await send(settings)
    except ModelHTTPError as e:
        most, asked = output_limit(e), (settings or {}).get("max_tokens")
        if most is None or not isinstance(asked, int) or asked <= most:
            raise
        if learned is not None:
            learned(most)
        return await send({**(settings or {}), "max_tokens": most})
