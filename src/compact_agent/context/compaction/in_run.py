"""A summary (or notes) request made during a run counts as one of the run's requests.

pydantic-ai's `UsageLimits` guard what a run spends: `request_limit` is checked before each of its
requests, the token limits after each response, against the run's `RunUsage` (`RunContext.usage`,
the object `result.usage` is). A compaction's summary request goes to a model in the middle of a
step, and was counted in neither: a run went past `request_limit` and `total_tokens_limit` with
nothing said, and `result.usage` left the summaries out.

While the capability's hooks run (pipeline.py), `counted_in` names the run. The summarizer the
library makes (`defaults.default_summarizer`) takes it (`current`) and, for each request it sends,
checks the run's limits first (`admit`: the step's own request, which pydantic-ai admitted before
the hooks ran, still to come after it) and adds what it used, as one request, to the run's usage
(`count`), checking the token limits as pydantic-ai does after a response. Each raises pydantic-ai's
own `UsageLimitExceeded`, which ends the run.

What it cost goes with it (`priced`): pydantic-ai prices the run's own responses (genai-prices, by the
response's model and provider; a cost the provider or a gateway reported is kept) into
`RunUsage.cost`, which `cost_limit` holds, and a summary's response, which comes from
`pydantic_ai.direct.model_request`, had none. The run's cost left its summaries out while its tokens
counted them, and a `cost_limit` never saw what they cost. It is priced the same way now, and the
cost limit checked after it as the token limits are.

A limit reached by the library's requests says so (`admit`, `worded`): pydantic-ai's own words ("The next
request would exceed the request_limit of 15") left a run that ended after 14 requests of its own with
no word of the summary that was the fifteenth, or that would have been. Each usage keeps how many of
its requests were the library's (`own_requests`), and a limit's error names them: the one `admit`
raises before a summary, and pydantic-ai's own at a later step (`lifecycle.run_error`, from the capability's
`on_run_error`, rewords it).

`compact_now(usage=..., usage_limits=...)` names a run the same way, as `agent.run(usage=...)` takes
a caller's usage: its summary requests are added to it and held to those limits, with no step's
request after them. The library's own session notes (memory.py) are written beside the run, which
waits for them: a notes update started after one of its responses (pipeline.py names the run there)
is held to its limits before it is sent (one with no room is not sent: a failed update) and added
to its usage after, unchecked (its answer is kept; pydantic-ai's check at the run's next step stops
the run). Counted nowhere: `compact_now`'s summary given neither (between runs, or another
conversation's, outside the hooks), notes a run does not wait for (`notes_in_background=True`), and
the requests of a summarizer or notes wired in (`Internals.summarizer`, `Internals.memory`: the
terminal agent prices its own).
"""

from __future__ import annotations

import contextlib
import dataclasses
import weakref
from collections.abc import Iterator, Sequence
from contextvars import ContextVar

from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.messages import ModelResponse
from pydantic_ai.usage import RequestUsage, RunUsage, UsageLimits

__all__ = ["Run", "admit", "count", "counted_in", "current", "own_requests", "priced", "reported", "worded"]


@dataclasses.dataclass(frozen=True)
class Run:
    """The run a summary request is made in: its usage (added to) and its limits (checked). `after`:
    the requests still to come once it is answered (the step's own in a run; none for `compact_now`)."""

    usage: RunUsage
    limits: UsageLimits | None
    after: int = 1


_RUN: ContextVar[Run | None] = ContextVar("compact_agent_run_usage", default=None)


@contextlib.contextmanager
def counted_in(usage: RunUsage, limits: UsageLimits | None, after: int = 1) -> Iterator[None]:
    """The summary requests made inside count in this run (in this task only: a `compact_now`
    another task runs meanwhile is not the run's), `after` requests still to come after each."""
    token = _RUN.set(Run(usage, limits, after))
    try:
        yield
    finally:
        _RUN.reset(token)


def current() -> Run | None:
    """The run a summary request made here would count in; None outside one."""
    return _RUN.get()


_OWN: dict[int, int] = {}  # by the `id` of a usage: how many of its requests were the library's


def own_requests(usage: RunUsage) -> int:
    """How many of `usage`'s requests were the library's own (summaries, notes) counted in it."""
    return _OWN.get(id(usage), 0)


def _tally(usage: RunUsage) -> None:
    key = id(usage)
    if key not in _OWN:
        weakref.finalize(usage, _OWN.pop, key, None)  # forgotten with the usage
    _OWN[key] = _OWN.get(key, 0) + 1


def made(usage: RunUsage, when: str = " so far") -> str:
    """The requests `usage` counts, and of them the library's own."""
    own = own_requests(usage)
    return f"{usage.requests} requests made{when}" + (f", {own} of them the context manager's own" if own else "")


def admit(run: Run | None, kind: str = "summary") -> None:
    """Before a summary (or `kind` "notes") request: `UsageLimitExceeded` when it, and after it the
    step's own request (`after`), would go past the run's `request_limit`, its words naming the
    request (pydantic-ai's would name none); or when its tokens are past a limit already."""
    if run is None or run.limits is None:
        return
    limit = run.limits.request_limit
    if limit is not None and run.usage.requests + run.after >= limit:
        what = "the session notes request" if kind == "notes" else "the summary request compacting the history"
        raise UsageLimitExceeded(
            f"The next request would exceed the request_limit of {limit}: {what} comes before it, and counts "
            f"as one of the run's requests ({made(run.usage)})" if run.after else
            f"{what[0].upper()}{what[1:]} would exceed the request_limit of {limit}: it counts as one of the "
            f"requests of the usage given ({made(run.usage)})")
    run.limits.check_before_request(run.usage)


def worded(error: UsageLimitExceeded, usage: RunUsage) -> UsageLimitExceeded:
    """pydantic-ai's error for a limit its own check found past, naming the library's requests
    counted in `usage` (the same error where there were none, or it names them already)."""
    hint = getattr(UsageLimitExceeded, "_HINT", "")  # pydantic-ai 2.68's, which it adds again
    said = str(error).removesuffix(hint).rstrip(". ")
    if not own_requests(usage) or "context manager" in said:
        return error
    return UsageLimitExceeded(f"{said} ({made(usage, '')}: summaries compacting the "
                              "history or session notes, each counted as one of the run's requests)")


def priced(response: ModelResponse) -> RequestUsage:
    """The response's usage with what it cost, where that can be known, as pydantic-ai prices the
    run's own responses: a cost already given (by the provider, or a gateway) is kept; else the
    price of its tokens for its model and provider (`ModelResponse.cost()`), and None where there
    is none (a model genai-prices does not know, a stand-in, a reply without usage). Pricing never
    fails a request. pydantic-ai before 2.68 keeps no cost on a usage: nothing is added there."""
    usage = response.usage
    if not hasattr(usage, "cost") or getattr(usage, "cost", None) is not None or not response.model_name:
        return usage
    # LookupError for a model it cannot price, ValueError for usage it cannot: the cost stays unknown
    with contextlib.suppress(Exception):
        usage.cost = response.cost().total_price
    return usage


def reported(usages: Sequence[object]) -> dict[str, int]:
    """What requests used, as an event's `detail["usage"]` says it (a compaction's summaries, a notes
    update's requests): how many, and their tokens (a usage of a summarizer wired in may lack one)."""
    return {"requests": len(usages), **{key: sum(getattr(u, key, 0) for u in usages)
                                        for key in ("input_tokens", "cache_read_tokens", "output_tokens")}}


def count(run: Run | None, used: RequestUsage, check: bool = True) -> None:
    """After a summary request: what it used (`priced`: its cost too), as one request of the run;
    `UsageLimitExceeded` when that takes the run past a token limit or its `cost_limit`. Not
    `check`ed: a notes request answered beside the run, whose answer is kept; pydantic-ai's check
    at the run's next step stops it there."""
    if run is None:
        return
    run.usage.incr(RunUsage(requests=1) + used)
    _tally(run.usage)
    if run.limits is None or not check:
        return
    try:
        run.limits.check_tokens(run.usage)
        check_cost = getattr(run.limits, "check_cost", None)  # pydantic-ai 2.68+: a cost_limit
        if check_cost is not None:
            check_cost(run.usage, warn_if_cost_unavailable=False)  # pydantic-ai warns once, at the run's end
    except UsageLimitExceeded as e:
        said = worded(e, run.usage)  # its words, and that the library's requests count in it
        if said is e:
            raise
        raise said from e
