"""A record written without a model, cut to a size by leaving out its oldest steps.

Where a window's system prompt and tools nearly fill it, neither a summary nor a whole record of
the stretch compacted may bring the request under the compactor's ceiling. The summary is then
paid for and lands over as well; the record, cut to the size the schedule expects a summary to
have, costs nothing and lands where the summary would. It keeps the newest steps — what the next
request is likeliest to need — and drops the oldest first: whole earlier records, then the oldest
lines of the steps. Every step is still in the archived transcript, which the compaction message
names; the record's first line says some were left out.

Called by the compactor (`Compactor._compact`) only for a record that landed over the ceiling;
the schedule then prices the cut record again as any other (`Schedule.record_pays`).
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["LEFT_OUT", "newest_steps", "whole"]

LEFT_OUT = "- (older steps are left out of this record to fit the window; the archived transcript has them)"
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
