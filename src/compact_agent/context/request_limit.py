"""A run's `per_request_input_tokens_limit` as the window the agent's own requests are kept in.

pydantic-ai's `UsageLimits(per_request_input_tokens_limit=N)` ends a run on the first response
reporting more than N input tokens. The schedule compacted by the window alone, so a caller guarding
each request at N below the window saw the agent's requests grow past it and the run end there
("Exceeded the per_request_input_tokens_limit of 5500 (request_input_tokens=5543)" in a 12-page run
in a 16,000-token window), where compacting earlier would have kept every request under it.

While the capability prepares a request of a run that carries such a limit below the window
(`within`, pipeline.py), the manager's limits are those of a window of N: the schedule's threshold and
hard limit, its triggers, what a compaction keeps, the layers' budgets and the last resort all hold
the request to N as they hold it to a window, the estimate's margin kept. The room a window keeps for
the answer a request's `max_tokens` asks (`answer_asked`) is none of the input's: only what of it the
window itself could not hold beside N is kept (`answer_asked` less the window's excess over N).
A request that cannot be brought under N is not sent (pydantic-ai would send it and end the run on
its response): the run ends on pydantic-ai's `UsageLimitExceeded`, the last resort's line worded for
the limit (`over`: raising it is advised once, pydantic-ai's own words where its version adds them), and
the `window` / `refused` event's `detail["window"]` (N) is marked as the limit (`marked`:
`detail["limit"]`). The whole window's limits come back when the request is prepared: between runs
(/context, `compact_now` given no such limit, the analyzer's replay) and in runs that set no limit, nothing
changes. `compact_now(usage_limits=...)` with one is held to it as a run's compaction (lifecycle.py): it cut
its summary request to N but kept what the window keeps (a 3,100-token ask whole), and the next run under N
compacted again at once.

A compaction answering the provider's "prompt too long" (pipeline.py) is held to N as well, as the
request sent again is: made for the window, it kept what the window's budgets keep (a 1,900-token ask
whole, the window's budget for what the user typed being 2,000), could not shrink the request, and the
run ended on the refusal. Where the instructions and tools, as the provider counts them, leave N no room
(full_window.no_record_fits), no compaction is tried: the run ends on N's error, so worded. A window
learned meanwhile (a summary request refused as too long, below N) stands, learned below the window
given (`cm.window`, which the swap leaves), not below N: its `window` / `learned` event and the saved
state say so. One named between N and the window (a 10,000-token server's, under a 5,500 limit and a
32,000-token window given) is learned too (`learned_above`): it was ignored, measured against N, and the
next run without the limit was sized to 32,000; the request stays held to N, the smaller, and the
learned window's limits come back after it. The notes and summary requests are held to N on their own (in_run.py:
`notes.past_input_limit`, `Keeper.summary_room`).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from typing import Any, Protocol

from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.usage import UsageLimits

from .compaction import in_run
from .plumbing import compat
from .plumbing.refusal import LARGER, WINDOW_NAMED, NoRoomForConversation
from .plumbing.settings import Limits

__all__ = ["LIMIT_NAMED", "Held", "held_to", "learned_above", "marked", "over", "window_of", "within"]


class Held(Protocol):
    """What of the manager its limits are held by: state.py's `ManagerState`, whose `learn_window` reads
    this module (`window_of`, `learned_above`), so none of it is imported here."""

    limits: Limits
    answer_asked: int
    max_output: int
    window: int | None
    settings: Any
    schedule: Any
    compactor: Any

    def adapt_output_reserve(self, output_tokens: int) -> None: ...


LIMIT_NAMED = "per_request_input_tokens_limit"  # what `detail["limit"]` says a refusal's `detail["window"]` is


@dataclasses.dataclass
class _Hold:
    most: int  # the run's limit the manager's limits are held to
    whole: Limits  # the window's, given back after the request: a window learned meanwhile above `most`, its own


_HELD: dict[int, _Hold] = {}  # by the manager's `id`


def held_to(cm: object) -> int | None:
    """The run's per-request input limit `cm`'s limits are held to now (`within`); None where they are the window's."""
    hold = _HELD.get(id(cm))
    return None if hold is None else hold.most


def window_of(cm: Held) -> int:
    """The window `cm`'s limits stand for, where they are held to a run's limit the window's they are held
    below: what a window the server names is learned below (`ManagerState.learn_window`)."""
    hold = _HELD.get(id(cm))
    return cm.limits.window if hold is None else hold.whole.window


def learned_above(cm: Held, window: int) -> bool:
    """A server's `window`, below the window `cm` is held below (`window_of`) and at or above the run's limit
    it is held to: the window given back after the request, the limit still holding it (the smaller of the
    two). False where `cm` is not so held: the window is set as any learned below the limits is."""
    hold = _HELD.get(id(cm))
    if hold is None or window < hold.most:
        return False
    hold.whole, cm.window = Limits.for_window(window, cm.max_output, cm.settings), window
    return True


def marked(cm: object) -> dict[str, str]:
    """What a `window` / `refused` event's detail adds where its `window` is the run's limit (`{"limit": ...}`)."""
    return {"limit": LIMIT_NAMED} if id(cm) in _HELD else {}


@contextlib.contextmanager
def within(cm: Held, limits: UsageLimits | None) -> Iterator[None]:
    """The request prepared inside held to the run's `per_request_input_tokens_limit` as to a window
    (module docstring), where it is below the window; the window's limits again after."""
    most = in_run.limit_of(limits)
    whole = cm.limits
    if most is None or most >= whole.window or id(cm) in _HELD:
        yield
        return
    asked = cm.answer_asked
    cm.answer_asked = max(0, asked - (whole.window - most))  # the window holds the answer beside the input
    configured = Limits.for_window(most, cm.max_output, cm.settings)
    held = cm.schedule.output_limits(configured, configured, 0, cm.settings.adaptive_output_reserve, cm.answer_asked)
    _HELD[id(cm)] = hold = _Hold(most, whole)
    cm.limits = held
    if cm.compactor is not None:
        cm.compactor.limits = held
    try:
        yield
    except NoRoomForConversation as e:  # the provider refused, and the limit leaves no room (full_window.py)
        raise _worded(most, str(e)) from e
    finally:
        del _HELD[id(cm)]
        cm.answer_asked, now = asked, cm.limits
        if now.window == most:  # the window's again (or one learned above the limit: `learned_above`), with what
            cm.limits = hold.whole  # it learned meanwhile (the most the model writes)
            if now != held or hold.whole is not whole:
                cm.adapt_output_reserve(0)
        if cm.compactor is not None:  # else a window learned below the limit stands, with its own limits
            cm.compactor.limits = cm.limits


def over(cm: Held, said: str) -> UsageLimitExceeded | None:
    """The error a request the last resort could not bring under the held limit ends the run with:
    pydantic-ai's, its line (`full_window`'s, which names the window) naming the limit; None where
    `cm` is held to none."""
    most = held_to(cm)
    return None if most is None else _worded(most, said)


def _worded(most: int, said: str) -> UsageLimitExceeded:
    """pydantic-ai's error for a run's limit of `most`, with `said`, a line naming the window, naming the limit."""
    named = said.replace(WINDOW_NAMED, f"run's {LIMIT_NAMED}")
    if not compat.LIMIT_ADVISED:
        named = named.replace(LARGER, f"raise the run's {LIMIT_NAMED}")
    else:  # pydantic-ai's own advice ends the line ("Consider raising the limit, ..."): not said twice
        named = named.replace(f", or {LARGER}", "").replace(f"{LARGER}, or ", "").removesuffix(f": {LARGER}")
    return UsageLimitExceeded(f"Exceeded the {LIMIT_NAMED} of {most}: {named}")
