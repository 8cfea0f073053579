"""What a summary (or notes) request made during a run spends counts in the run: its tokens and cost.

pydantic-ai's `UsageLimits` guard what a run spends: `request_limit` is checked before each step of
the agent loop, the token limits after each response, against the run's `RunUsage`
(`RunContext.usage`, the object `result.usage` is). A compaction's summary request goes to a model in
the middle of a step, and was counted in neither: a run went past `total_tokens_limit` with nothing
said, and `result.usage` left the summaries' tokens out.

While the capability's hooks run (pipeline.py), `counted_in` names the run. The summarizer the
library makes (`defaults.default_summarizer`) takes it (`current`) and, for each request it sends,
checks the run's token and cost limits first (`admit`) and adds its tokens and cost to the run's usage
(`count`), checking the token limits as pydantic-ai does after a response. Each raises pydantic-ai's
own `UsageLimitExceeded`, which ends the run. It is not one of the run's `requests`, nor held to
`request_limit`: pydantic-ai counts there the responses committed to the history, one per step of the
agent loop (`RunUsage.requests`), not every request sent (a `FallbackModel`'s attempts, continuation
requests: their tokens count, as these do). Counted there, a summary took a step from the caller's
budget: a conversation carried whole (`Conversation.usage`, across its runs) stopped at pydantic-ai's
default `request_limit` of 50 a turn before the same agent without the library did.

What it cost goes with it (`priced`): pydantic-ai prices the run's own responses (genai-prices, by the
response's model and provider; a cost the provider or a gateway reported is kept) into
`RunUsage.cost`, which `cost_limit` holds, and a summary's response, which comes from
`pydantic_ai.direct.model_request`, had none. The run's cost left its summaries out while its tokens
counted them, and a `cost_limit` never saw what they cost. It is priced the same way now, and the
cost limit checked after it as the token limits are.

A run's `per_request_input_tokens_limit` (pydantic-ai's guard on the context one request sends) holds
the library's summary requests too: each is cut to fit it (`input_limit`, `Keeper.summary_room`), as
to a smaller window, and one whose response reports more input than it allows ends the run, as
pydantic-ai's check after each response does (`count`), its error naming the summary request.
The agent's own requests are held to it as to a smaller window while the run carries it
(request_limit.py, reading it with `limit_of`).

A token or cost limit the library's requests took the run past says so (`worded`): each usage keeps
how many requests of the library's it counts (`own_requests`), and the limit's error names them, the
one `count` raises and pydantic-ai's own at a later step (`lifecycle.run_error`, from the capability's
`on_run_error`, rewords it). A `request_limit` or `tool_calls_limit` reached is the agent's own steps
and calls, and a `per_request_input_tokens_limit` there its own request: pydantic-ai's words.

`compact_now(usage=..., usage_limits=...)` names a run the same way, as `agent.run(usage=...)` takes
a caller's usage: its summary requests' tokens and cost are added to it and held to those limits. The library's own session notes (memory.py) are written beside the run, which
waits for them: a notes update started after one of its responses (pipeline.py names the run there)
is held to its limits before it is sent (one with no room is not sent: a failed update) and added
to its usage after, unchecked (its answer is kept; pydantic-ai's check at the run's next step stops
the run). One past the run's `per_request_input_tokens_limit` is not sent (`notes.past_input_limit`, a failed
update): it repeats the request just sent, its cached prefix, which is not cut as a summary request is.
One whose response reports more input than that limit allows is a failed update too, its notes not kept
(`count`, "notes": pydantic-ai's words naming it, where they were kept with nothing said). Counted nowhere:
`compact_now`'s summary given neither (between runs, or another conversation's, outside the hooks), notes
a run does not wait for (`notes_in_background=True`: `Run.counts` False, held to the run's per-request
input limit alone, before and after as above; they read no limit of the run and went out past it), and
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

__all__ = ["Run", "admit", "count", "counted_in", "current", "input_limit", "limit_of", "own_requests", "priced",
           "reported", "worded"]


@dataclasses.dataclass(frozen=True)
class Run:
    """The run a summary request is made in: its usage (added to) and its limits (checked)."""

    usage: RunUsage
    limits: UsageLimits | None
    # False: notes a run does not wait for (`notes_in_background`), counted in none and held to its
    # per-request input limit alone (`admit` and `count` leave its usage and other limits be).
    counts: bool = True


_RUN: ContextVar[Run | None] = ContextVar("compact_agent_run_usage", default=None)


@contextlib.contextmanager
def counted_in(usage: RunUsage, limits: UsageLimits | None, counts: bool = True) -> Iterator[None]:
    """The summary requests made inside count in this run (in this task only: a `compact_now`
    another task runs meanwhile is not the run's); not `counts`: held to its per-request input limit alone."""
    token = _RUN.set(Run(usage, limits, counts))
    try:
        yield
    finally:
        _RUN.reset(token)


def current() -> Run | None:
    """The run a summary request made here would count in; None outside one."""
    return _RUN.get()


_OWN: dict[int, int] = {}  # by the `id` of a usage: how many of its requests were the library's


def own_requests(usage: RunUsage) -> int:
    """How many requests of the library's own (summaries, notes) `usage` counts the tokens of."""
    return _OWN.get(id(usage), 0)


def _tally(usage: RunUsage) -> None:
    key = id(usage)
    if key not in _OWN:
        weakref.finalize(usage, _OWN.pop, key, None)  # forgotten with the usage
    _OWN[key] = _OWN.get(key, 0) + 1


def admit(run: Run | None, kind: str = "summary") -> None:
    """Before a summary (or `kind` "notes") request: `UsageLimitExceeded` when the run's tokens or cost
    are past a limit already (pydantic-ai's check before a request, less `request_limit`, which counts
    the agent's steps: a request of the library's is none)."""
    if run is None or run.limits is None or not run.counts:
        return
    dataclasses.replace(run.limits, request_limit=None).check_before_request(run.usage)


#: The limits a run's sums are held to, as pydantic-ai's errors name them: the library's requests add to these.
_SUMS = ("the input_tokens_limit", "the output_tokens_limit", "the total_tokens_limit", "the `cost_limit`")


def input_limit() -> int | None:
    """The most input tokens one request may send in the run a request of the library's is made in
    (`UsageLimits.per_request_input_tokens_limit`: a summary request is cut to it, `Keeper.summary_room`);
    None outside a run, or where it sets none."""
    return _input_limit(_RUN.get())


def _input_limit(run: Run | None) -> int | None:
    return limit_of(run.limits) if run is not None else None


def limit_of(limits: UsageLimits | None) -> int | None:
    """`limits`' `per_request_input_tokens_limit` (None where they set none, or their pydantic-ai has none)."""
    most = getattr(limits, "per_request_input_tokens_limit", None)  # 2.6x's
    return most if isinstance(most, int) and not isinstance(most, bool) else None


def _said(error: UsageLimitExceeded) -> str:
    hint = getattr(UsageLimitExceeded, "_HINT", "")  # pydantic-ai 2.68's, which it adds again
    return str(error).removesuffix(hint).rstrip(". ")


def worded(error: UsageLimitExceeded, usage: RunUsage) -> UsageLimitExceeded:
    """pydantic-ai's error for a token or cost limit found past, naming the library's requests whose
    tokens `usage` counts (the same error where there were none, it names them already, or it is
    another limit: `request_limit` and `tool_calls_limit` count the agent's steps and calls, none of
    the library's requests, and `per_request_input_tokens_limit` one request, the agent's)."""
    said, own = _said(error), own_requests(usage)
    if not own or "context manager" in said or not any(limit in said for limit in _SUMS):
        return error
    named = UsageLimitExceeded(f"{said} ({usage.requests} requests of the run's steps, and {own} of the context "
                               "manager's own: summaries compacting the history or session notes, whose tokens "
                               "and cost count in the run)")
    named.__cause__ = error  # pydantic-ai's own, under it
    return named


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


_WHAT = {"summary": "a summary request of the context manager's own, compacting the history, cut to fit that limit "
                    "by an estimate of its tokens",
         "notes": "a session-notes request of the context manager's own, held to that limit by an estimate of its "
                  "tokens: its notes are not kept"}


def count(run: Run | None, used: RequestUsage, kind: str = "summary") -> None:
    """After a summary request: what it used (`priced`: its cost too) added to the run's tokens and
    cost, not to its `requests` (the module docstring); `UsageLimitExceeded` when that takes the run
    past a token limit or its `cost_limit`, or the request's own input was past the run's
    `per_request_input_tokens_limit` (pydantic-ai's words, naming the request). A notes request (`kind`)
    answered beside the run is held to the per-request limit alone, a failed update past it (memory.py);
    its answer within it is kept, and pydantic-ai's check at the run's next step holds the cumulative ones."""
    if run is None:
        return
    if run.counts:
        run.usage.incr(used)
        _tally(run.usage)
    if run.limits is None:
        return
    most = _input_limit(run)  # its own input first, as pydantic-ai checks each response's
    if most is not None and used.input_tokens > most:  # sized to fit it by an estimate, which fell short
        raise UsageLimitExceeded(f"Exceeded the per_request_input_tokens_limit of {most} (request_input_tokens="
                                 f"{used.input_tokens}): {_WHAT[kind]}")
    if kind == "notes" or not run.counts:
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
