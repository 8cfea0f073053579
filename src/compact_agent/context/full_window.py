"""A compaction where the window is full: what no compaction can answer, and what a record must free.

A provider that refuses a request as too long is answered by a compaction (reactive: compacting.py
`_auto`). Where the instructions and tool definitions, as the provider counts them, leave no room
for the least a record written without a model keeps (its framing and the first words of the user's
newest message), none can help: one was tried, its summary request longer still and the record no
smaller, said in a line of its own ("auto-compaction failed"), and the run ended on the provider's
refusal ("too long … could not be shrunk"), naming neither figure. `no_record_fits` says so instead,
in one line (`refusal.fixed_refusal`), before anything is tried.

Where the summary request cannot fit, a record of the steps stands in for it (compacting.py
`_record_instead`). Where the window forced that compaction, the record must bring the request, as
it will be sent, to the hard limit at most, the largest request that leaves the model room for its
reply, or, answering the provider's refusal, to what the provider takes (`record_ceiling`): a 4K
window's record freed 8% and left the request over it, with no room for the next step's reply, and
the next request compacted again, archiving the whole transcript each time. A record over it is
made again keeping less (the thrash guard's steps) and, still over, not made (`RecordTooWeak`): the
failed compaction leaves the request to the last resort (decisions/fit.py), or, answering a
refusal, the run to end on it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pydantic_ai.messages import ModelMessage

from .compaction import summary
from .compaction.result import CompactionResult, RecordTooWeak
from .plumbing import tokens
from .plumbing.events import Event
from .plumbing.refusal import NoRoomForConversation, fixed_refusal
from .plumbing.settings import estimate_margin
from .state import ManagerState


def no_record_fits(cm: ManagerState, messages: Sequence[ModelMessage], refused: int | None
                   ) -> NoRoomForConversation | None:
    """The error a refused request of `messages` (`refused` tokens, as the provider counted it) ends the
    run with where no compaction can make room (module docstring), emitted as a `window` / `refused`
    event; None where a record could. The instructions and tool definitions are the calibrated
    estimate, or the provider's count of the whole request less its messages', if larger."""
    assert cm.compactor is not None
    window = cm.limits.window
    room = min(window - window // 50, window - cm.answer_asked)
    fixed = cm.calibration.tokens(cm.overhead)
    if refused:
        fixed = max(fixed, refused - cm.calibration.tokens(cm.estimate(messages)))
    newest = [u[:summary.USER_HEAD_CHARS] for u in cm.compactor.user_texts(messages)[-1:]]
    least = cm.calibration.tokens(tokens.estimate([summary.summary_message("", None, newest, "record")]))
    if fixed + least <= room:
        return None
    size = max(refused or 0, fixed + least)
    cm.emit(Event("window", "refused", size, size, detail={"window": window, "fixed": fixed,
                                                          "max_tokens": cm.answer_asked}))
    model = cm.run_model.model_name if cm.run_model is not None else ""
    return NoRoomForConversation(model, fixed_refusal(fixed, window, answer=cm.answer_asked, least=least,
                                                      counted=fixed > cm.overhead_estimate * 11 // 10))


def record_ceiling(cm: ManagerState, trigger: str) -> int | None:
    """The largest request a record may leave where the window forced the compaction. For an
    automatic one over the hard limit, the hard limit: a record refused leaves the request to the
    last resort (decisions/fit.py), which brings it there. For one answering the provider's refusal
    (`trigger` "reactive"), what the provider takes: the window less the `max_tokens` asked and the
    estimate's margin. No last resort follows a refused reactive record (the run ends on the
    refusal), and a request under the window is sent, the next one's automatic compaction and last
    resort bringing it to the hard limit. None for any other compaction (a /compact, or one at the
    threshold, takes what a record frees)."""
    if trigger == "reactive":
        return cm.limits.window - max(estimate_margin(cm.limits.window), cm.answer_asked)
    if trigger != "auto" or cm._reason != "window":
        return None
    return cm.schedule.hard_limit(cm)


def useful(ceiling: int | None, sent: Callable[[CompactionResult], int],
           vet: Callable[[CompactionResult], None]) -> Callable[[CompactionResult], None]:
    """`vet`, after refusing a record whose history, as the next request sends it (`sent`), is over
    `ceiling` (`RecordTooWeak`): asked before anything is archived, so a record refused leaves no copy
    of the transcript behind."""
    def check(result: CompactionResult) -> None:
        if ceiling is not None and (after := sent(result)) > ceiling:
            raise RecordTooWeak(f"a record would leave the request at {after:,} tokens, over the {ceiling:,} that "
                                "leave the model room for its reply: not made", before=result.tokens_before, after=after)
        vet(result)
    return check
