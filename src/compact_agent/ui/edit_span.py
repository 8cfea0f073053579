"""Where a change of the input happened, as text: the pure arithmetic the paste guards share.

`edit` tells which part of the text before a key became which text after it; `spans` finds the
placeholders of pastes in a text. paste_guard.py keeps each placeholder whole with them, and
paste_lookalikes.py keeps typed words from passing for one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable


def spans(text: str, names: Iterable[str]) -> list[tuple[int, int]]:
    """Where the placeholders `names` are in `text`, as (start, end), in order."""
    ordered = sorted(names, key=len, reverse=True)
    if not ordered:
        return []
    return [m.span() for m in re.finditer("|".join(map(re.escape, ordered)), text)]


def edit(before: str, after: str, cursor: int) -> tuple[int, int, str]:
    """The edit that made `after` of `before`: (start, end, typed), `before[start:end]` replaced by
    `typed`. A character typed or deleted beside the same character could have been either one:
    the cursor, after the edit, says which (`[` typed before `[pasted …]` is not typed inside it)."""
    most = min(len(before), len(after))
    same_start = 0
    while same_start < most and before[same_start] == after[same_start]:
        same_start += 1
    same_end = 0
    while same_end < most and before[-1 - same_end] == after[-1 - same_end]:
        same_end += 1
    grown = len(after) - len(before)
    if grown > 0 and same_start + same_end >= len(before):  # only typed: somewhere in a range
        at = min(max(cursor - grown, len(before) - same_end), same_start)
        return at, at, after[at:at + grown]
    if grown < 0 and same_start + same_end >= len(after):  # only deleted
        at = min(max(cursor, len(after) - same_end), same_start)
        return at, at - grown, ""
    same_end = min(same_end, most - same_start)
    return same_start, len(before) - same_end, after[same_start:len(after) - same_end]
