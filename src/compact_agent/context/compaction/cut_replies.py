"""A reply that did not finish keeps the mark that says so through a compaction.

An agent closes a reply the user stopped (Esc, Ctrl-C), or that the provider or a signal cut off,
with the text that had come and a mark of its own after it, in a paragraph of its own
(`[compact-agent: the user stopped this reply here; this answer is incomplete]`: the terminal agent's
agent/run/unfinished.py). A record of the steps wrote each reply by its first 240 characters and the
last resort's folded note by its first 160 or 60 (fit.py): the mark, at the end, went, and the model
read the stopped reply as an answer it had finished. A summary the model writes may leave it out too.

So a reply's end mark is kept with the reply, whole, wherever its text is cut (`clipped`); and a
compaction message whose summary holds fewer such marks than the messages it replaces says, under
the summary, which replies did not finish and with what mark (`kept_in`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart

from ..plumbing.markers import OWN_TEXT

#: What a record's step keeps of a reply (`digest.default_digest`'s "- Assistant: …").
RECORD_REPLY_CHARS = 240
#: The least of a marked reply's own text kept beside its mark, however short the cut.
MIN_WORDS = 24
#: Heads the lines `kept_in` adds under a summary.
UNFINISHED_HEAD = "Replies that did not finish (the program's marks, kept from the messages this covers):"


def split(text: str) -> tuple[str, str]:
    """`text` and "" , or where it ends with a mark of ours in a paragraph of its own, the text before
    it and the mark."""
    body, sep, last = text.rstrip().rpartition("\n\n")
    if sep and last.startswith(OWN_TEXT) and last.endswith("]") and "\n" not in last:
        return body, last
    return text, ""


def clipped(text: str, chars: int) -> str:
    """`text` with its whitespace made single spaces, cut to `chars` characters and "…" where longer;
    a mark it ends with (`split`) kept whole after what fits of the rest in `chars`, `MIN_WORDS` at
    the least (then longer than `chars`: the mark alone is longer than a folded step's 60)."""
    body, mark = split(text)
    room = max(MIN_WORDS, chars - len(mark) - 2) if mark else chars
    body = " ".join(body.split())
    body = body if len(body) <= room else body[:room] + "…"
    return f"{body} {mark}".strip() if mark else body


def for_record(messages: Sequence[ModelMessage]) -> list[ModelMessage]:
    """`messages` with each reply that ends with a mark cut so that a record's step keeps the mark
    (`RECORD_REPLY_CHARS`); the others as they are."""
    out: list[ModelMessage] = []
    for m in messages:
        if isinstance(m, ModelResponse) and any(isinstance(p, TextPart) and split(p.content)[1] for p in m.parts):
            m = dataclasses.replace(m, parts=[
                dataclasses.replace(p, content=clipped(p.content, RECORD_REPLY_CHARS - 1))
                if isinstance(p, TextPart) and split(p.content)[1] else p for p in m.parts])
        out.append(m)
    return out


def kept_in(summary: str, replaced: Sequence[ModelMessage]) -> str:
    """`summary`, followed by a line for each reply of `replaced` that ends with a mark, where the
    summary holds fewer of those marks than the replies do: the reply's first words and its mark."""
    marked = [(p.content, split(p.content)[1]) for m in replaced if isinstance(m, ModelResponse)
              for p in m.parts if isinstance(p, TextPart) and split(p.content)[1]]
    if not marked or all(summary.count(mark) >= sum(1 for _, k in marked if k == mark) for _, mark in marked):
        return summary
    lines = [f'- the reply beginning "{clipped(split(text)[0], 120)}" ended: {mark}' for text, mark in marked]
    return "\n\n".join([summary.rstrip(), "\n".join([UNFINISHED_HEAD, *lines])])
