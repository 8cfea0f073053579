"""Which of the messages the user typed a compaction message carries, and how each is cut to fit
its budget (summary.py writes the message that lists them)."""

from __future__ import annotations

from collections.abc import Sequence

from ..plumbing import tokens

USER_HEAD_CHARS = 300
"""Past the budget, an older user message keeps its first characters: the start of an instruction
is what names it, and a model that needs the rest can read it in the archive."""
CUT_MARK = " …[cut; the whole message is in the archived transcript]"
"""Ends a user message cut to its head: under a header that says "verbatim", it says where the rest is."""
MIDDLE_MARK = " …[the middle of this message is cut here; the whole message is in the archived transcript]… "
"""Between the two ends of the newest user message when it alone is longer than the room left for it."""


class Typed(list[str]):
    """Messages the user typed, and how many older ones are left out of them (`left_out`): by a
    compaction before, whose message keeps the count in its metadata, and by `pick_user_messages`."""

    left_out = 0


def typed(texts: Sequence[str], left_out: int) -> Typed:
    out = Typed(texts)
    out.left_out = left_out
    return out


def left_out(texts: Sequence[str]) -> int:
    """How many older typed messages `texts` (a `Typed`, else none) leaves out."""
    return texts.left_out if isinstance(texts, Typed) else 0


def left_out_line(n: int) -> str:
    """What a compaction message says under the typed messages it lists where it left older ones out:
    it said nothing, and a model read the list as all the user had asked (the first, the task, gone)."""
    return f"{n:,} older message{'' if n == 1 else 's'} left out ({'its' if n == 1 else 'their'} full text is in the archive)"


def pick_user_messages(texts: Sequence[str], budget_tokens: int) -> Typed:
    """Every message the user typed, newest first. Within the budget all of them verbatim. Past it,
    the newest (the request under way) stays whole within the room the older ones' heads leave, or
    half the budget; longer, it keeps its two ends there (a long paste's question comes last). The
    older ones stay verbatim, newest first, while the heads of those before them still fit, then keep
    their first `USER_HEAD_CHARS` characters; where even those do not fit, the oldest are left out
    (all are in the archive), and counted (`left_out`). Older heads first left the newest of twelve 1,300-character prompts
    in an 8K window its first 300 characters."""
    budget = budget_tokens * int(tokens.CHARS_PER_TOKEN)
    if sum(len(t) for t in texts) <= budget:
        return typed(list(reversed(texts)), left_out(texts))

    def head(t: str) -> str:
        if MIDDLE_MARK in t[:USER_HEAD_CHARS + len(MIDDLE_MARK)]:  # cut to its ends before: its beginning
            return t[:t.index(MIDDLE_MARK)] + CUT_MARK
        return t if len(t) <= USER_HEAD_CHARS else t[:USER_HEAD_CHARS] + CUT_MARK

    *older, newest = texts
    rest = sum(len(head(t)) for t in older)
    room = max(budget - rest, min(len(newest), budget // 2))
    picked = [newest if len(newest) <= room else ends(newest, room)]
    used = len(picked[0])
    for t in reversed(older):
        h = head(t)
        rest -= len(h)
        if used + len(t) + rest <= budget:
            picked.append(t)
            used += len(t)
        elif used + len(h) <= budget:
            picked.append(h)
            used += len(h)
        else:
            break
    return typed(picked, left_out(texts) + len(texts) - len(picked))


def ends(text: str, room: int) -> str:
    """`text`'s beginning and end in `room` characters (half each), `MIDDLE_MARK` between them."""
    keep = max(0, room - len(MIDDLE_MARK))
    first = keep // 2
    return text[:first] + MIDDLE_MARK + text[len(text) - (keep - first):]
