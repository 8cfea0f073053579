"""A record written without a model, cut to a size by leaving out its oldest steps.

A record of the stretch compacted may be too long to pay for whole (held on every request), or,
where a window's system prompt and tools nearly fill it, land over the compactor's ceiling, where a
summary would be paid for and land over as well. Cut to the size the schedule expects a summary to
have, the record costs nothing and lands where the summary would. It keeps the newest steps — what
the next request is likeliest to need — and drops the oldest first: whole earlier records (a summary
written at an earlier compaction among them), then the oldest lines of the steps. Every step is
still in the archived transcript, which the compaction message names; the record's first line says
some were left out.

Called by the compactor for a record the schedule does not take whole once a summary was written
(`paying`), and for one that landed over the ceiling (`Compactor._compact`); the schedule then prices
the cut record again as any other (`Schedule.record_pays`). Cut and still over the ceiling, it stays
once a summary was written (before, a summary's size is only the prior's): a summary covering no
more steps at that size lands over as well, and the last resort brings either under (`fit.py`).
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["LEFT_OUT", "newest_steps", "paying", "whole"]

LEFT_OUT = "- (older steps are left out of this record; the archived transcript has them)"
"""The first line of a cut record: a step line, as the record's own are."""


def whole(record: str | None) -> str | None:
    """A record as it was written: what the compactor keeps until one lands over its ceiling."""
    return record


def newest_steps(record: str | None, tokens: int, count: Callable[[str], int]) -> str | None:
    """`record`'s newest blocks and step lines that fit `tokens` as `count` measures text, after
    `LEFT_OUT`; `record` itself where it fits whole (or is None), None where not even its newest
    step does. Blocks are what `summary.record_of` joins with a blank line (earlier records, then
    the steps); within the oldest block kept, the cut falls at the start of a step ("- "), found by
    halving (a record's steps may run to hundreds of lines)."""
    if record is None or count(record) <= tokens:
        return record
    kept: list[str] = []
    for block in reversed(record.split("\n\n")):
        if count("\n\n".join([LEFT_OUT, block, *kept])) <= tokens:
            kept.insert(0, block)
            continue
        lines = block.split("\n")
        starts = [i for i in range(1, len(lines)) if lines[i].startswith("- ")]
        lo, hi = 0, len(starts)  # the longest run of its newest steps that fits: fewer lines, fewer tokens
        while lo < hi:
            mid = (lo + hi) // 2
            if count("\n\n".join([LEFT_OUT, "\n".join(lines[starts[mid]:]), *kept])) <= tokens:
                hi = mid
            else:
                lo = mid + 1
        if lo < len(starts):
            kept.insert(0, "\n".join(lines[starts[lo]:]))
        break
    return "\n\n".join([LEFT_OUT, *kept]) if kept else None


def paying(record: str | None, prefer: Callable[[int], bool], cap: int | None,
           count: Callable[[str], int]) -> str | None:
    """The record a compaction keeps instead of buying a summary: `record` where `prefer` (the
    schedule's price, given its size as `count` measures it) takes it whole; else, with `cap` (the
    size this session's summaries have had; None before one was written), its newest steps within `cap`
    where `prefer` takes those; else None, and a summary is asked for. Cut to a summary's size, a record
    takes the room a summary would and costs no request; it keeps the newest steps verbatim, where the
    next step looks most (in the replayed transcripts, 158 summary requests at a 32K window became 108,
    and what the next step used was in the request more often: recall 73.9% -> 74.1%, 209 -> 203 stalls).
    Not before a summary was written: cut to the prior's 2,000 tokens in a 4,096-token window, whose
    summaries were far shorter, a record freed too little and continued runs compacted twice each."""
    if record is None or prefer(count(record)):
        return record
    newest = newest_steps(record, cap, count) if cap is not None else None
    return newest if newest is not None and newest is not record and prefer(count(newest)) else None
