"""/compact refused before its summary is paid for when the summary would take about all the room
the compaction could free.

The library refuses a compaction that, with no summary at all, would keep as much as the context
holds now (`NotSmaller`, `unasked`). A conversation a little longer passed that test, asked for the
summary, and then freed 19 tokens of 2,248, or was refused after the request was paid for: the
summary took what there was to free. A manual compaction is now asked for only when, with no
summary at all, it would free at least `LEAST_FREED` tokens: a summary is seldom shorter than that
(the prompt asks for nine sections). `/compact --from N` and `--up-to N` are held to the same rule
(`partial_frees_too_little`): they were checked only once their summary was back.

The least is weighed over every tail the compaction can keep: a manual one whose summary leaves its
longest tail freeing under `LEAST_FREED` keeps a shorter one (the library's rule, compactor.py
`short_of`). It kept the longest whenever the result was smaller at all: a second /compact in a row
asked for a summary and freed 39 tokens of 4,354 where a shorter tail freed hundreds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...context import CompactionError, NotSmaller
from ...context.compaction import ledger, summary
from ...context.compaction.cuts import partial_split
from ...context.compaction.result import LEAST_FREED as MANUAL_LEAST_FREED
from ...context.shaping import preview

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from ...context import ContextManager
    from ...context.compaction.keep import KeepPlan

#: Tokens a manual compaction must be able to free, with an empty summary, to be worth a summary
#: request; in provider tokens, as the context's size is counted. The library's own: a manual
#: compaction whose result frees less keeps a shorter tail (compaction/result.py).
LEAST_FREED = MANUAL_LEAST_FREED

#: The thrash guard's escalations a compaction tries when its result is no smaller, or a manual one's
#: frees under `LEAST_FREED` (compactor.py): each keeps a shorter tail, so the least it could keep is
#: the least over them.
LEVELS = 3


def frees_too_little(cm: ContextManager, messages: list[ModelMessage], before: int) -> NotSmaller | None:
    """The refusal a full compaction of `messages` (the context `before` tokens now) deserves
    before its summary is asked for: the least it could keep (an empty summary message, the tail at
    each escalation) frees under `LEAST_FREED`. None when a summary could be worth it."""
    compactor = cm.compactor
    if compactor is None or not messages:
        return None
    compactor.ratio = cm.calibration.ratio  # as the compaction sets it: estimates in provider tokens
    level = compactor.escalation
    floors: list[tuple[int, KeepPlan]] = []
    try:
        for compactor.escalation in reversed(range(LEVELS)):  # level 0 last: the plan it keeps is the one used first
            plan = compactor.preview(messages, cm.overhead)
            floors.append((plan.framed() - plan.shaved, plan))  # the tail as sent, as `before` counts it
    finally:
        compactor.escalation = level
    floor, plan = min(floors, key=lambda f: f[0])
    if before - floor >= LEAST_FREED:
        return None
    fixed = compactor.scaled(cm.overhead)
    verbatim = compactor.scaled(compactor.estimated(plan.history[plan.cut:])) - plan.shaved  # as sent, as the floor
    parts = {"summary": floor - verbatim - fixed, "files": 0, "file_paths": [], "other": 0, "verbatim": verbatim,
             "verbatim_messages": len(plan.history) - plan.cut, "fixed": fixed}
    return NotSmaller(f"a compaction would free at most {max(0, before - floor):,} of {before:,} tokens",
                      before=before, after=floor, parts=parts, unasked=True)


def partial_frees_too_little(cm: ContextManager, messages: list[ModelMessage], pivot: int, direction: str,
                             before: int) -> NotSmaller | None:
    """The refusal `/compact --from N` or `--up-to N` deserves before its summary is asked for, by the
    rule of a whole /compact's (`LEAST_FREED`): the history it would leave with an empty summary
    message (the messages it keeps, before or after it), as the next request would send it, frees
    under `LEAST_FREED` of the `before` tokens now. Partial compactions went unchecked until their
    summary was paid for: a `--up-to 1` after a `--from 0` asked for one to free 37 tokens of 1,374.
    None when a summary could be worth it, or when the compactor's own errors (nothing on that side
    to summarise) are the ones to say."""
    compactor = cm.compactor
    if compactor is None or not messages:
        return None
    compactor.ratio = cm.calibration.ratio  # as the compaction sets it: estimates in provider tokens
    try:
        head, to_sum, tail = partial_split(messages, pivot, direction)  # as the compaction splits them
    except CompactionError:
        return None  # compact_partial says it, as it always has
    if not to_sum:
        return None
    users = summary.pick_user_messages(compactor.user_texts(to_sum), compactor.limits.user_messages_budget)
    files = ledger.changed_files(messages, attempts=True, writers=compactor.file_tools)
    empty = summary.summary_message("", None, users, f"partial_{direction}", files, ledger.read_files(to_sum))
    floor = cm.measure(preview(cm, [*head, empty, *tail]).messages)  # as `manual.as_sent` counts the result
    if before - floor >= LEAST_FREED:
        return None
    fixed = compactor.scaled(cm.overhead)
    framed = compactor.scaled(compactor.estimated([empty]))
    parts = {"summary": framed, "files": 0, "file_paths": [], "other": 0,
             "verbatim": max(0, floor - framed - fixed), "verbatim_messages": len(head) + len(tail),
             "head_messages": len(head), "fixed": fixed}
    return NotSmaller(f"a compaction would free at most {max(0, before - floor):,} of {before:,} tokens",
                      before=before, after=floor, parts=parts, unasked=True)
