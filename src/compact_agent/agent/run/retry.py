"""Bounded retries for provider failures the HTTP client cannot retry itself.

Who retries what, so that the total is bounded and nothing is retried twice over:

- The openai/anthropic SDK retries 408/409/429/5xx and connection failures `max_retries` times
  (default 2, so 3 attempts), backing off 0.5 s, 1 s, … up to 8 s with jitter, and waiting what a
  `retry-after(-ms)` header says when that is at most 120 s (a longer one is not retried at all).
  Each attempt is bounded by `request_timeout_s`.
- This capability retries, `transient_retries` times (default 2) with 1 s, 2 s, … (at most 8 s)
  between, the one failure the SDK cannot see: a 200 reply whose body is not valid JSON (a proxy
  glitch, a truncated body). HTTP status errors, connection errors and timeouts are left alone —
  the SDK already retried them, and retrying again would only multiply the wait for an endpoint
  that is down.

Worst case for one model request: 3 attempts, whichever the failure (the SDK does not retry a
malformed body, so ours are the only retries there). A stream that breaks after output has
reached the user cannot be rewound by any hook (pydantic-ai hands it over to the consumer): the turn
then ends with one line, and the session keeps everything saved before it.

A reply without a finish reason (a stream that ends cleanly with no `finish_reason`, usage or
`[DONE]`; some local servers do this) is accepted, as pydantic-ai does — it fills in `stop` — because
the body itself arrived whole and tool-call arguments are still validated. It is not silent,
though: `on_unfinished` reports it, and the runner writes a `provider/no_finish_reason` event.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.exceptions import ModelAPIError, ModelHTTPError, RetryModelRequest, UnexpectedModelBehavior
from pydantic_ai.messages import ModelResponse, TextPart, ThinkingPart, ToolCallPart
from pydantic_ai.models import ModelRequestContext
from pydantic_ai.tools import RunContext

from ...session.repair import renamed_calls
from ...session.store import utf8_safe


def error_chain(error: BaseException) -> list[BaseException]:
    """`error` and the errors under it (`__cause__`, else `__context__`), outermost first, each once."""
    out: list[BaseException] = []
    seen: set[int] = set()
    e: BaseException | None = error
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        out.append(e)
        e = e.__cause__ or e.__context__
    return out


def is_timeout(error: BaseException) -> bool:
    return any("Timeout" in type(e).__name__ or isinstance(e, TimeoutError) for e in error_chain(error))


def is_transient(error: BaseException) -> bool:
    """A failure worth one more try that the SDK did not already retry: a malformed reply body."""
    if isinstance(error, ModelHTTPError) or is_timeout(error):
        return False
    return isinstance(error, ModelAPIError) and any(isinstance(e, json.JSONDecodeError) for e in error_chain(error))


@dataclass
class TransientRetry(AbstractCapability[Any]):
    """Add to an Agent's capabilities; `on_retry(error, attempt, delay_s)` observes each retry."""

    retries: int = 2
    base_delay_s: float = 1.0
    max_delay_s: float = 8.0
    on_retry: Callable[[Exception, int, float], None] | None = None
    on_unfinished: Callable[[ModelResponse], None] | None = None
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    total: int = field(default=0, init=False)
    _key: tuple[Any, int] | None = field(default=None, init=False, repr=False)
    _count: int = field(default=0, init=False, repr=False)

    async def on_model_request_error(self, ctx: RunContext[Any], *, request_context: ModelRequestContext,
                                     error: Exception) -> ModelResponse:
        if not is_transient(error):
            raise error
        key = (ctx.run_id, ctx.run_step)
        if key != self._key:
            self._key, self._count = key, 0
        if self._count >= self.retries:
            raise error
        self._count += 1
        self.total += 1
        delay = min(self.max_delay_s, self.base_delay_s * 2 ** (self._count - 1))
        if self.on_retry is not None:
            self.on_retry(error, self._count, delay)
        await self.sleep(delay)
        raise RetryModelRequest()

    async def after_model_request(self, ctx: RunContext[Any], *, request_context: ModelRequestContext,
                                  response: ModelResponse) -> ModelResponse:
        details = response.provider_details
        if self.on_unfinished is not None and isinstance(details, dict) and "finish_reason" not in details:
            self.on_unfinished(response)
        _parts_of_their_types(response)
        _utf8_only(response)
        renamed_calls(response)  # a tool name no provider takes back: answered, kept and sent as another
        _whole_counts(response)
        return response


class ReplyOfAnotherShape(UnexpectedModelBehavior):
    """A reply whose parts are not of the types its API gives them: a text that is a number (an SDK
    builds a streamed reply without checking it). Refused when it arrives, said as a reply this
    agent cannot read (error_causes.reply_unreadable), where pydantic-ai went on to add the number
    to a text and the turn ended in Python's words ('can only concatenate str (not "int") to str')."""


def _parts_of_their_types(response: ModelResponse) -> None:
    for part in response.parts:
        if isinstance(part, TextPart | ThinkingPart):
            fine = isinstance(part.content, str)
        elif isinstance(part, ToolCallPart):
            fine = (isinstance(part.tool_name, str) and isinstance(part.tool_call_id, str)
                    and (part.args is None or isinstance(part.args, str | dict)))
        else:
            continue
        if not fine:
            raise ReplyOfAnotherShape(f"a {part.part_kind} part of the reply is not of the types its API gives it")


def _utf8_only(response: ModelResponse) -> None:
    """A reply may carry a lone surrogate (`"\\ud800"` is valid JSON): Python holds it, UTF-8
    cannot, so the next request carrying the history would fail to encode, turn after turn. The
    reply is kept with U+FFFD in its place, like every other undecodable character."""
    for part in response.parts:
        for attr in ("content", "args"):
            value = getattr(part, attr, None)
            if isinstance(value, str) and (safe := utf8_safe(value)) is not value:
                setattr(part, attr, safe)


#: The fields of a reply's usage that are no count of tokens.
_NOT_COUNTS = frozenset({"audio_seconds", "details", "cost"})


def _whole_counts(response: ModelResponse) -> None:
    """A reply's token counts as whole numbers: the SDK keeps what the provider sent (`1.5`,
    `1e308`), the session file saves it, and reading the file back refuses the line — the model's
    answer lost on resume, the file warning of an unreadable line. A count that is no number is 0,
    as pydantic-ai makes one it cannot read; the warning that usage is odd was said already."""
    usage = response.usage
    for f in dataclasses.fields(usage):
        if f.name not in _NOT_COUNTS and not _is_count(value := getattr(usage, f.name)):
            setattr(usage, f.name, _as_count(value))
    if isinstance(usage.details, dict) and not all(_is_count(v) for v in usage.details.values()):
        usage.details = {k: _as_count(v) for k, v in usage.details.items()}


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _as_count(value: object) -> int:
    return int(value) if isinstance(value, float) and math.isfinite(value) and value >= 0 else 0
