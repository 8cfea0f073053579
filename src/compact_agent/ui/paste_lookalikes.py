"""Words that merely look like a paste's placeholder are never taken for one.

A placeholder (`[pasted 20 lines]`) is words in the input, and the line sent has each held
placeholder's words replaced by its paste (pastes.py). The same words typed by the user were
replaced too: typing `[pasted 20 lines]` beside a paste of 20 lines sent the log twice, and typing
it after deleting that paste sent the deleted log. So the input keeps one rule: wherever a held
placeholder's words are, that is the placeholder. A new placeholder is worded so its words are
not in the input already, nor in a line of the prompt history Up could bring in its place
(`[pasted 20 lines #2]` beside the typed words, `Pastes.insert`); and
when an edit makes a held placeholder's words out of typed text (keys typed at the prompt or
typed ahead during a turn, a small paste that goes in as text, a deletion that joins two parts),
those words stay typed words: the placeholder they look like is worded anew, its paste unchanged
(`[pasted 20 lines]` becomes `[pasted 20 lines #2]`), or, where it was deleted and held only for
Undo, its paste is let go (`disown`).

Words of a placeholder that come back in one edit of several characters that is no paste (Undo,
or Ctrl-Y of a placeholder cut with Ctrl-W or Ctrl-K: paste_guard.py) are that placeholder back.
"""

from __future__ import annotations

import re

from .edit_span import edit, spans
from .pastes import Pastes


def _found(text: str, names: list[str]) -> list[tuple[int, int, str]]:
    """Each placeholder's words in `text`: (start, end, words), in order."""
    return [(a, b, text[a:b]) for a, b in spans(text, names)]


def disown(pastes: Pastes, before: str, after: str, cursor: int, typing: bool) -> tuple[str, int] | None:
    """The input and its cursor once the edit from `before` to `after` (the cursor at `cursor`)
    makes no held placeholder's words out of typed text: where it did, the placeholder those words
    look like is worded anew (in `pastes` too), or let go when nowhere in the input. `typing`: the
    edit is text of a paste that goes in as it is. None when there is nothing to change.
    `before` holds no words of a held placeholder that are not it (the rule this keeps)."""
    names = list(pastes.held)
    if not names:
        return None
    start, end, typed = edit(before, after, cursor)
    moved = len(typed) - (end - start)
    placed = {(a, b) if b <= start else (a + moved, b + moved) for a, b in spans(before, names)
              if b <= start or a >= end}  # placeholders the edit left as they were
    back = not typing and len(typed) > 1  # Undo, a yank: what comes back whole is a placeholder
    found = _found(after, names)
    looks = {(a, b) for a, b, _ in found if (a, b) not in placed
             and not (back and start <= a and b <= start + len(typed))}
    if not looks:
        return None
    anew: dict[str, str] = {}
    for name in dict.fromkeys(n for a, b, n in found if (a, b) in looks):
        paste = pastes.held.pop(name)
        if any(n == name and (a, b) not in looks for a, b, n in found):
            anew[name] = pastes.name(re.sub(r" #\d+\]$", "]", name), after)
            pastes.held[anew[name]] = paste
    text, at, shift = after, cursor, 0
    for a, b, name in found:
        if (a, b) in looks or name not in anew:
            continue
        text = text[:a + shift] + anew[name] + text[b + shift:]
        if b <= cursor:
            at += len(anew[name]) - (b - a)
        shift += len(anew[name]) - (b - a)
    return text, at


def typed_on(pastes: Pastes, before: str, typed: str) -> str:
    """`before` with `typed` (keys typed ahead during a turn, or a small paste) put after it, and
    no held placeholder's words made of them (`disown`)."""
    after = before + typed
    fixed = disown(pastes, before, after, len(after), True)
    return fixed[0] if fixed is not None else after
