"""A compaction where the window is full: what no compaction can answer, and what a record must free.

A request the last resort (decisions/fit.py) could not bring under the window is not sent: the run ends
in one line naming what takes the room (`not_brought_under`, `refusal.window_refusal`). Each refusal is a
`window` / `refused` event; where a run's `per_request_input_tokens_limit` stands for the window
(request_limit.py), its `detail["window"]` is that limit, and `detail["limit"]` says so. A document
the user attached to the newest message that takes more than the window alone is refused so before
anything is tried (`document_over_window`, `refusal.document_refusal`): a compaction can leave out
what came before, not the message the model is asked about. One was run (a summary paid for, the
earlier turns rewritten into it), the request was still over the window, the last resort left the
document out, and the model answered without it. A document that fits alone is compacted around.

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

from pydantic_ai.messages import BinaryContent, ModelMessage, UserPromptPart

from .compaction import summary
from .compaction.result import CompactionResult, RecordTooWeak
from .plumbing import media_size, tokens
from .plumbing.events import Event
from .plumbing.refusal import NoRoomForConversation, document_refusal, fixed_refusal, window_refusal
from .plumbing.settings import estimate_margin, sendable
from .plumbing.tool_content import newest_asked
from .request_limit import marked
from .state import ManagerState


def not_brought_under(cm: ManagerState, view: Sequence[ModelMessage], tokens_now: int) -> str | None:
    """The line a request of `view` (measured at `tokens_now`) is refused with where the last resort
    could not bring it under the window, less the `max_tokens` it asks and the estimate's margin, emitted
    as a `window` / `refused` event; None where it fits."""
    window, size, margin = cm.limits.window, max(tokens_now, cm.fit_size(view)), estimate_margin(cm.limits.window)
    if size <= sendable(window, cm.answer_asked):
        return None
    fixed = cm.calibration.tokens(cm.overhead)
    cm.emit(Event("window", "refused", size, size, detail={"window": window, "fixed": fixed,
                                                          "max_tokens": cm.answer_asked, **marked(cm)}))
    return window_refusal(view, size=size, window=window, fixed=fixed, scale=cm.calibration.tokens,
                          answer=cm.answer_asked, margin=margin if size <= window - cm.answer_asked else 0)


def document_over_window(cm: ManagerState, messages: Sequence[ModelMessage]) -> str | None:
    """The line a request is refused with, before any compaction, where the largest document attached
    to the user's newest message (the last request holding words of the user's: a tool's content is
    none) takes, with the instructions and tool definitions, more than the window holds less the
    `max_tokens` asked and the estimate's margin: the room the last resort shrinks a request to, which
    would leave the document out. Emitted as a `window` / `refused` event naming it; None where none does.
    A document counts as elsewhere (media_size.py), calibrated; one by URL has no size to judge. The line
    names the instructions and tool definitions where the agent has some (a fixed part the calibration
    learned of an agent with none is no part of them the user can shorten)."""
    newest = None if (at := newest_asked(messages)) is None else messages[at]
    window, margin = cm.limits.window, estimate_margin(cm.limits.window)
    room = sendable(window, cm.answer_asked)  # the message whole first: memoised, a PDF's pages counted once
    if newest is None or cm.calibration.tokens(tokens.message_tokens(newest) + cm.overhead) <= room:
        return None
    sizes = [(tokens.part_tokens(UserPromptPart([item])), item) for p in newest.parts if isinstance(p, UserPromptPart)
             and not isinstance(p.content, str) for item in p.content
             if isinstance(item, BinaryContent) and media_size.is_document(item)]
    alone, largest = max(sizes, key=lambda sized: sized[0], default=(0, None))
    size, fixed = cm.calibration.tokens(alone + cm.overhead), cm.calibration.tokens(cm.overhead)
    if largest is None or size <= room:
        return None
    cm.emit(Event("window", "refused", size, size, detail={"window": window, "fixed": fixed, "max_tokens": (
        cm.answer_asked), "document": media_size.document_name(largest), **marked(cm)}))
    name = f"{media_size.document_name(largest, size=False)} ({media_size.document_extent(largest)})"
    return document_refusal(name, cm.calibration.tokens(alone), fixed if cm.overhead_estimate else 0, window,
                            answer=cm.answer_asked, margin=margin)


def no_record_fits(cm: ManagerState, messages: Sequence[ModelMessage], refused: int | None
                   ) -> NoRoomForConversation | None:
    """The error a refused request of `messages` (`refused` tokens, as the provider counted it) ends the
    run with where no compaction can make room (module docstring), emitted as a `window` / `refused`
    event; None where a record could. The instructions and tool definitions are the calibrated
    estimate, or the provider's count of the whole request less its messages', if larger."""
    assert cm.compactor is not None
    window = cm.limits.window
    room = sendable(window, cm.answer_asked)
    fixed = cm.calibration.tokens(cm.overhead)
    if refused:
        fixed = max(fixed, refused - cm.calibration.tokens(cm.estimate(messages)))
    newest = [u[:summary.USER_HEAD_CHARS] for u in cm.compactor.user_texts(messages)[-1:]]
    least = cm.calibration.tokens(tokens.estimate([summary.summary_message("", None, newest, "record")]))
    if fixed + least <= room:
        return None
    size = max(refused or 0, fixed + least)
    cm.emit(Event("window", "refused", size, size, detail={"window": window, "fixed": fixed,
                                                          "max_tokens": cm.answer_asked, **marked(cm)}))
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
        return sendable(cm.limits.window, cm.answer_asked)
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
