"""A summary request made during a run counts as one of the run's requests.

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
own `UsageLimitExceeded`, which ends the run. Counted nowhere: `compact_now`'s summary (between runs,
or another conversation's, outside those hooks), the session notes (written beside the
run), and the requests of a summarizer wired in (`Internals.summarizer`: the terminal agent prices
its own).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from contextvars import ContextVar

from pydantic_ai.usage import RequestUsage, RunUsage, UsageLimits

__all__ = ["Run", "admit", "count", "counted_in", "current"]


@dataclasses.dataclass(frozen=True)
class Run:
    """The run a summary request is made in: its usage (added to) and its limits (checked)."""

    usage: RunUsage
    limits: UsageLimits | None


_RUN: ContextVar[Run | None] = ContextVar("compact_agent_run_usage", default=None)


@contextlib.contextmanager
def counted_in(usage: RunUsage, limits: UsageLimits | None) -> Iterator[None]:
    """The summary requests made inside count in this run (in this task only: a `compact_now`
    another task runs meanwhile is not the run's)."""
    token = _RUN.set(Run(usage, limits))
    try:
        yield
    finally:
        _RUN.reset(token)


def current() -> Run | None:
    """The run a summary request made here would count in; None outside one."""
    return _RUN.get()


def admit(run: Run | None) -> None:
    """Before a summary request: `UsageLimitExceeded` when it, and after it the step's own request,
    would go past the run's `request_limit` (or its tokens are past a limit already)."""
    if run is not None and run.limits is not None:
        run.limits.check_before_request(dataclasses.replace(run.usage, requests=run.usage.requests + 1))


def count(run: Run | None, used: RequestUsage) -> None:
    """After a summary request: what it used, as one request of the run; `UsageLimitExceeded` when
    that takes the run past a token limit."""
    if run is None:
        return
    run.usage.incr(RunUsage(requests=1) + used)
    if run.limits is not None:
        run.limits.check_tokens(run.usage)
