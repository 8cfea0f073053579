"""Which of the messages the user typed a compaction message carries, and how each is cut to fit
its budget (summary.py writes the message that lists them).

Every typed message is carried while they fit (the fidelity floor). Past the budget, what goes first
is decided by what the model still needs of each:
- the newest is the request under way: it stays whole, or keeps its two ends (a long paste's
  question comes last);
- the first is the task, which every later message refines and none restates ("go on", "now the
  tests"): it is kept next, whole where the heads of the ones between it and the newest leave room,
  else by its first characters, which name it;
- the ones between them are each needed for a shorter while the further back they are, a later one
  having followed each up: they stay whole newest first, then by their heads, and where even the
  heads do not fit, the oldest of them (those right after the task) are left out, one line in their
  place saying how many and that the archive holds them whole.
Left out oldest first, a 6K window's compaction dropped the task itself, and the model read the
follow-ups ("and the second file too") as all it had been asked.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

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
    compaction before, whose message keeps the count in its metadata, and by `pick_user_messages`.
    `first_kept`: those left out came after the first, which is the oldest listed (else before it).
    `cut`, `dropped`: how many of them `pick_user_messages` cut (to their ends or heads) and left out
    itself, not counting what a compaction before did (`told` puts them in the compaction's event)."""

    left_out = 0
    first_kept = False
    cut = 0
    dropped = 0


def typed(texts: Sequence[str], left_out: int, first_kept: bool = False) -> Typed:
    out = Typed(texts)
    out.left_out, out.first_kept = left_out, first_kept and left_out > 0
    return out


def only(texts: Typed, keep: Callable[[str], bool]) -> Typed:
    """`texts` less those `keep` refuses (what a harness injected as user-role text), counting those
    left out before as they did: the first kept is still the task where `keep` took the first."""
    return typed([t for t in texts if keep(t)], texts.left_out, texts.first_kept and bool(texts) and keep(texts[0]))


def first_kept(texts: Sequence[str]) -> bool:
    return texts.first_kept if isinstance(texts, Typed) else False


def listed(picked: Sequence[str], item: Callable[[str], str]) -> list[str]:
    """`picked` (newest first) each as `item` writes it, with the line saying how many are left out
    where they were: after the first (the task, listed last) when it was kept, else under them all."""
    lines = [item(m) for m in picked]
    if n := left_out(picked):
        lines.insert(len(lines) - 1 if first_kept(picked) else len(lines), left_out_line(n, first_kept(picked)))
    return lines


def metadata(picked: Sequence[str]) -> dict[str, object]:
    """What a compaction message's metadata keeps of the typed messages left out (`typed` reads it back)."""
    n = left_out(picked)
    return {"users_left_out": n, **({"users_first_kept": True} if first_kept(picked) else {})} if n else {}


def without(texts: Sequence[str], index: int) -> Typed:
    """`texts` without the one at `index`, counting what it left out as it did: the user's newest
    message, which a compaction puts in a message of its own after the results it kept from before it."""
    rest = list(texts)
    del rest[index]
    return typed(rest, left_out(texts), first_kept(texts))


def told(picked: Sequence[str]) -> dict[str, int]:
    """What a compaction's event says of the messages the user typed that `picked` (`pick_user_messages`)
    cut or left out: `typed_cut`, `typed_left_out`, where there are any. The compaction message says
    so to the model; the user, whose long paste a compaction had cut to its first characters, was not told."""
    cut, dropped = (picked.cut, picked.dropped) if isinstance(picked, Typed) else (0, 0)
    return {**({"typed_cut": cut} if cut else {}), **({"typed_left_out": dropped} if dropped else {})}


def left_out(texts: Sequence[str]) -> int:
    """How many older typed messages `texts` (a `Typed`, else none) leaves out."""
    return texts.left_out if isinstance(texts, Typed) else 0


def left_out_line(n: int, after_first: bool = False) -> str:
    """What a compaction message says where it left typed messages out: it said nothing, and a model
    read the list as all the user had asked. `after_first`: they came after the first (listed below)."""
    its, many = ("its", "") if n == 1 else ("their", "s")
    if after_first:
        return f"{n:,} message{many} after the first (below) left out here ({its} full text is in the archive)"
    return f"{n:,} older message{many} left out ({its} full text is in the archive)"


def pick_user_messages(texts: Sequence[str], budget_tokens: int) -> Typed:
    """Every message the user typed, newest first, within the budget all of them verbatim; past it,
    by the rule of the module docstring: the newest whole within the room the older ones' heads leave,
    or half the budget (its two ends there when longer; never fewer than `USER_HEAD_CHARS` of its own
    characters, past a budget that small); then the first (the task), whole where the
    heads of those between still fit, else its first `USER_HEAD_CHARS` characters; then those between,
    newest first, whole while the heads of those before them fit, then by their heads, and where even
    those do not fit, the oldest of them are left out (all are in the archive), and counted
    (`left_out`, `first_kept`). Older heads first left the newest of twelve 1,300-character prompts
    in an 8K window its first 300 characters. Where a compaction before left out the oldest, the task
    among them (`left_out` without `first_kept`), no message here is the task: all are kept newest
    first, as those between are."""
    budget = budget_tokens * int(tokens.CHARS_PER_TOKEN)
    if sum(len(t) for t in texts) <= budget:
        return typed(list(reversed(texts)), left_out(texts), first_kept(texts))

    def head(t: str) -> str:
        if MIDDLE_MARK in t[:USER_HEAD_CHARS + len(MIDDLE_MARK)]:  # cut to its ends before: its beginning
            return t[:t.index(MIDDLE_MARK)] + CUT_MARK
        return t if len(t) <= USER_HEAD_CHARS else t[:USER_HEAD_CHARS] + CUT_MARK

    *older, newest = texts
    rest = sum(len(head(t)) for t in older)
    # Never below its first words: in a budget smaller than that (the half of a short round the last
    # resort left out, decisions/fit.py), its two ends in it held none of it, only the cut's mark.
    room = max(budget - rest, min(len(newest), max(budget // 2, USER_HEAD_CHARS + len(MIDDLE_MARK))))
    picked = [newest if len(newest) <= room else ends(newest, room)]
    used = len(picked[0])
    first: list[str] = []
    task = not left_out(texts) or first_kept(texts)  # else the oldest here came after those left out before
    if older and task and used + len(head(older[0])) <= budget:  # the task, before any message between
        rest -= len(head(older[0]))
        first = [older[0] if used + len(older[0]) + rest <= budget else head(older[0])]
        used, older = used + len(first[0]), older[1:]
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
    picked += first
    out = typed(picked, left_out(texts) + len(texts) - len(picked), bool(first))
    whole = set(texts)
    out.cut, out.dropped = sum(t not in whole for t in picked), len(texts) - len(picked)
    return out


def ends(text: str, room: int) -> str:
    """`text`'s beginning and end in `room` characters (half each), `MIDDLE_MARK` between them."""
    keep = max(0, room - len(MIDDLE_MARK))
    first = keep // 2
    return text[:first] + MIDDLE_MARK + text[len(text) - (keep - first):]
