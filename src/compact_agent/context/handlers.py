"""What runs around a compaction on the caller's behalf: `before_compact`, `after_compact`, a
preview's confirmation, and what a blocked compaction falls back to.

What `before_compact` returns is also a measurement: once it has added instructions, a compaction
may have to ask a model for a summary, and the schedule prices every one so from then on. A handler
that only runs side effects (or adds nothing this session) leaves the cheaper record in the plan.

A caller's handler is its own code and may fail; a failure costs the handler's contribution (an
event says so), never the compaction. Two answers are not failures: `CompactionBlocked` raised by
`before_compact` (a user's PreCompact hook said no), and a preview that is not confirmed. Either
way nothing is archived or rewritten, and one `compact` / `blocked` event says why and what
happens instead. The window still rules: an automatic compaction that was needed because the
request is over the hard limit falls back to shrinking this request's view (fit.py), so a block
never makes a request go out over the window.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from .compaction import in_run
from .compaction.result import CompactionBlocked, CompactionResult
from .plumbing.events import Event, one_line
from .plumbing.settings import said_with_type

if TYPE_CHECKING:
    from .state import ManagerState as ContextManager  # what the handlers read of the manager

#: Called with a compaction computed (its archive written) but not yet committed; False keeps the
#: history (awaited when it is a coroutine; a plain function's answer is taken as is).
Confirm = Callable[[CompactionResult], Awaitable[bool] | bool]

SHRINK = "this request is shrunk to fit the window instead (the saved history stays whole)"
FITS = "the request fits the window as it is; the next request asks again"
UNCHANGED = "nothing was changed"


async def timed_before(cm: ContextManager, trigger: str, instructions: str) -> tuple[str, float | None]:
    """`before`, and the milliseconds it took by the manager's clock (None without a handler): a
    PreCompact hook runs while the user waits for the compaction, so its time is the compaction's."""
    if cm.before_compact is None:
        return instructions, None
    started = cm.clock()
    instructions = await before(cm, trigger, instructions)
    return instructions, ms_since(cm.clock, started)


def ms_since(clock: Callable[[], datetime], started: datetime) -> float:
    return round(max(0.0, (clock() - started).total_seconds() * 1000), 3)


def add_hook_time(result: CompactionResult, hook_ms: float | None) -> None:
    """Count the time `before_compact` took in the compaction's `duration_ms` (what the caller waited
    for) and say it apart, as `detail["hook_ms"]`: the compactor times only its own work."""
    if hook_ms is None:
        return
    result.event.duration_ms = round(result.event.duration_ms + hook_ms, 3)
    result.event.detail["hook_ms"] = hook_ms


def requests_made(summarize: object) -> int:
    """How many requests `summarize` has recorded (`usage`, as `SharedPrefixSummarizer` keeps it)."""
    usages = getattr(summarize, "usage", None)
    return len(usages) if isinstance(usages, list) else 0


def add_summary_usage(result: CompactionResult, summarize: object, earlier: int = 0) -> None:
    """What the compaction's own model requests used, as `detail["usage"]` (requests and tokens):
    a caller watching the events sees what each compaction's summaries took, also where no run
    counts them (`compact_now`'s: compaction/in_run.py). Only the requests made for this one (after
    the `earlier` ones)."""
    usages = getattr(summarize, "usage", None)
    if not isinstance(usages, list) or len(usages) <= earlier:
        return
    result.event.detail["usage"] = in_run.reported(usages[earlier:])


async def before(cm: ContextManager, trigger: str, instructions: str) -> str:
    """The caller's pre-compaction step; a block is passed on, any other failure is reported and
    the compaction goes on with the instructions it had."""
    if cm.before_compact is None:
        return instructions
    try:
        answer: object = cm.before_compact(trigger, instructions)
        if inspect.isawaitable(answer):  # `async def`, as documented; a plain function's answer is taken as is
            answer = await answer
        if answer is None:  # side effects only: the instructions stay as they were
            return instructions
        given = answer
        if not isinstance(given, str):
            raise TypeError(f"before_compact returned {said_with_type(given)}, not the instructions to use "
                            "(a str, or None to leave them)")
    except CompactionBlocked:
        raise
    except Exception as e:  # noqa: BLE001
        cm.emit(Event("hook", "failed", trigger=trigger, detail={"error": one_line(e)}))
        return instructions
    given = given if given.strip() else ""  # blank: no instructions (the compactor may keep a record)
    # Instructions need a summary (a record cannot follow them): from now on the schedule prices an
    # automatic compaction as one. A handler that has added none, or only to a /compact (which is
    # a summary anyway), leaves records priced as records.
    if given and given != instructions and trigger != "manual":
        cm.handler_instructs = True
    return given


async def after(cm: ContextManager, result: CompactionResult) -> None:
    if cm.after_compact is None:
        return
    try:
        await cm.after_compact(result)
    except Exception as e:  # noqa: BLE001
        cm.emit(Event("hook", "failed", trigger=result.trigger, detail={"error": one_line(e)}))


async def confirmed(confirm: Confirm | None, result: CompactionResult) -> None:
    """Raises CompactionBlocked unless `confirm` (if any) accepts `result`."""
    if confirm is None:
        return
    answer = confirm(result)
    if inspect.isawaitable(answer):
        answer = await answer
    if not answer:
        raise CompactionBlocked("not confirmed at the preview")


def blocked(cm: ContextManager, trigger: str, tokens: int, error: CompactionBlocked) -> None:
    """Report a blocked compaction, and arrange the fallback: when the request is over the hard
    limit (the schedule's "window" reason) or the provider refused it as too long ("reactive"),
    the next view is shrunk to the hard limit."""
    if trigger == "manual":
        fallback = UNCHANGED
    elif trigger == "reactive" or cm._reason == "window":
        fallback = SHRINK
        cm._fit_hard_limit = True
    else:
        fallback = FITS
    cm._reason = ""
    cm.emit(Event("compact", "blocked", tokens, tokens, trigger=trigger,
                  detail={"reason": error.reason, "fallback": fallback}))


def no_archive() -> Path | None:
    """The archive of a manager without a store: a compaction cannot keep the transcript, so none is made."""
    raise OSError("no session store to archive into")
