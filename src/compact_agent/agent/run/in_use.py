"""The size of the context in use now: one figure for /context, /status, the toolbar and /compact.

Where the view the next request would send still ends with what the last request sent, and its
answer, the provider said how large that was (its input and output tokens): the figure is that,
plus an estimate of what followed. Otherwise it is the estimate calibrated by the provider's
reports. The two differ: the calibration ratio is learned from whole requests, whose instructions
and tool definitions a provider may count unlike the estimate, and it scales every message by it
(a 3,750-token answer was estimated at 4,319). /context showed 4,913 tokens, the provider's count,
and /compact said a compaction would keep 'more than the 5,482 in use now'.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Protocol

from pydantic_ai.messages import ModelMessage, ModelResponse, ThinkingPart, ToolCallPart

from ...context.plumbing import tokens

if TYPE_CHECKING:
    from pydantic_ai.models import Model

    from ...session.entries import Boundary


class _Manager(Protocol):
    """What of the `ContextManager` the figure reads."""

    @property
    def calibration(self) -> tokens.Calibration: ...
    @property
    def compacted_since_last_request(self) -> bool: ...
    def estimate(self, messages: Sequence[ModelMessage]) -> int: ...


def anchor(view: list[ModelMessage], calibration: tokens.Calibration, compacted_at: datetime | None = None,
           sent_size: Callable[[list[ModelMessage]], int] | None = None) -> int | None:
    """Provider-reported size of the last request (+ its output) plus an estimate of what followed;
    None when that response was answered before `compacted_at`, the latest compaction: one of the
    verbatim tail it kept reports a request that held everything compacted since (a session
    resumed after `/compact` showed the size before it in /status, /context and the toolbar).
    None too when the messages before it are no longer what that request sent (`still_sent`). Thinking
    a new turn moved among the earlier is taken off where the provider does not count that, and all
    thinking since where it counts none (`Calibration.uncounted`)."""
    for i in range(len(view) - 1, -1, -1):
        m = view[i]
        if isinstance(m, ModelResponse) and m.usage.input_tokens:
            answered = m.timestamp if m.timestamp.tzinfo is not None else m.timestamp.replace(tzinfo=UTC)
            if compacted_at is not None and answered <= compacted_at:
                return None
            if sent_size is not None and not still_sent(view[:i], m, calibration, sent_size):
                return None
            # Thinking the provider leaves out of its count (`Calibration.left_out`) that the messages since
            # brought: a new turn's start moved earlier, or the answer's own where none is counted.
            moved = calibration.left_out(view) - calibration.left_out(view[:i])
            return (m.usage.input_tokens + carried_output(m) + calibration.tokens(tokens.estimate(view[i + 1:]))
                    - calibration.tokens(moved))
    return None


def carried_output(response: ModelResponse) -> int:
    """What of `response`'s output tokens the next request carries: all of them, but the reasoning it
    reported where the view carries none of it (left out to fit: fit.py; or never sent back, as OpenAI's
    reasoning models keep theirs). An 8K session's answer with 7,500 tokens of reasoning showed
    'context 8.8k / 8.0k tokens (110%)' before a request the server counted at 1,294. Where the view
    carries the thinking it counts, unless the provider's reports showed it leaves that out (`anchor`)."""
    if any(isinstance(p, ThinkingPart) for p in response.parts):
        return response.usage.output_tokens
    return response.usage.output_tokens - min(response.usage.output_tokens, response.usage.output_reasoning_tokens)


def reasoning_unsure(calibration: tokens.Calibration, view: list[ModelMessage]) -> int:
    """Of a figure anchored to the last answer (`anchor`), the reasoning tokens it reported that the
    next request sends back and that are counted though the provider's reports have not yet told
    whether it counts reasoning sent back (plumbing/thinking.py: only a turn's start or a step tells
    it, so not the first report): the safe side, said (/status). 0 where that is known or none is sent."""
    answer = next((m for m in reversed(view) if isinstance(m, ModelResponse) and m.usage.input_tokens), None)
    if answer is None or not any(isinstance(p, ThinkingPart) for p in answer.parts):
        return 0
    # After an answer the next request starts a turn, and the answer's thinking is an earlier turn's.
    ended = not any(isinstance(p, ToolCallPart) for p in answer.parts)
    known = calibration.thinking.earlier if ended else calibration.thinking.current
    return answer.usage.output_reasoning_tokens if known is None else 0


def still_sent(before: list[ModelMessage], response: ModelResponse, calibration: tokens.Calibration,
               sent_size: Callable[[list[ModelMessage]], int]) -> bool:
    """Whether `before` (the view up to `response`) is the request `response` answered, by the
    estimate kept with the calibration's latest report. The layers may decide after an answer, and a
    look shows what they would decide now (`shaping.preview`): a collapse due folds rounds that request
    still sent, and /status said '4,914 tokens, provider-reported' of a context whose /compact began
    at 2,980. Within a fiftieth: the size of the instructions and tools is estimated afresh after a
    restart, and a layer's decision frees more than that. Without a report of this response kept, it
    is believed."""
    last = calibration.last_report()
    if last is None or last[0] != response.usage.input_tokens:
        return True
    return abs(sent_size(before) - last[1]) <= max(64, last[1] // 50)


def reported_size(cm: _Manager, view: list[ModelMessage], compacted_at: datetime | None, fixed: int) -> int | None:
    """The size of `view` (the next request's, `fixed` the estimate of its instructions and tools)
    anchored to the provider's count of the last request (`anchor`), or None where none holds: a
    compaction since, or a view no longer what that request sent."""
    if cm.compacted_since_last_request:  # usage reported before a compaction measured the old, longer context
        return None
    return anchor(view, cm.calibration, compacted_at, lambda messages: int(cm.estimate(messages)) + fixed)


def estimated_size(cm: _Manager, view: list[ModelMessage], fixed: int) -> int:
    """The calibrated estimate of `view` with `fixed` (our estimate, as the calibration learns from
    it: `Calibration.whole` adds what the provider counts beyond it), less what the provider does
    not count (the earlier turns' thinking, where its reports showed it leaves that out)."""
    return cm.calibration.whole(int(cm.estimate(view)) + fixed)


def in_use(cm: _Manager, view: list[ModelMessage], compacted_at: datetime | None, fixed: int) -> int:
    """`reported_size`, else `estimated_size`."""
    reported = reported_size(cm, view, compacted_at, fixed)
    return reported if reported is not None else estimated_size(cm, view, fixed)


def counted_after(messages: list[ModelMessage], model: Model, boundaries: Sequence[Boundary]) -> datetime | None:
    """A resumed session's `compacted_at`, before which `anchor` takes no answer's count for this
    model's: the latest compaction's time (the last of `boundaries`), or the newest answer's where
    another model or server gave it. `-c` after a /model switch no answer followed, or `-c -m NAME`,
    called the old model's count of its last request this one's ('provider-reported') until the new
    one answered, a figure of another tokenizer, as a switch within a session no longer does
    (model_switch.py). Told by the answer's model id and address; one that names no model (saved by
    an older version) is believed."""
    compacted_at = boundaries[-1].when if boundaries else None
    answer = next((m for m in reversed(messages) if isinstance(m, ModelResponse) and m.usage.input_tokens), None)
    at = (answer.provider_url or "").rstrip("/") if answer is not None else ""
    if answer is None or answer.model_id is None or (
            answer.model_id == model.model_id and at in ("", (model.base_url or "").rstrip("/"))):
        return compacted_at
    answered = answer.timestamp if answer.timestamp.tzinfo is not None else answer.timestamp.replace(tzinfo=UTC)
    return answered if compacted_at is None or answered > compacted_at else compacted_at
