"""What the first message of a request too large for the window gives up (decisions/fit.py, steps 5 and 7).

The first message is the compaction message (the summary or record, the user's words it carries, the
ledger of the files changed) or the user's opening request, with the words carried from the rounds
the request left out (`CARRIED`). In order, cheapest loss first: a compaction message's records
(`without_records`: one line says they were left out); then every text cut to its first words
(`cut_to_heads`: a compaction message to its floors, `floors_text`); then, once the newest steps are
folded and the request is still over, its own texts replaced by one line (`texts_left_out`), where a later
message holds the user's newer ask; last, only to stay inside the window itself, a compaction
message's floors with fewer of the user's messages, down to the newest (`thinner`). The saved history
keeps every word.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelRequestPart, UserPromptPart

from ..compaction import ledger, summary

__all__ = ["CARRIED", "HEAD_CHARS", "LEFT_OUT", "carried_text", "cut_to_heads", "floors_text", "head_of",
           "texts_left_out", "thinner", "without_records"]

CARRIED = "[compact-agent: what the user typed in the rounds left out of this request, oldest first]\n"
LEFT_OUT = ("[compact-agent: the earlier conversation is left out of this request to fit the window; "
            "the saved session keeps it]")
HEAD_CHARS = 300
OUT_OF_REQUEST = "left out of this request to fit the window; the saved session keeps it"


def carried_text(p: object) -> str | None:
    """The text of a carried-words part, else None."""
    if isinstance(p, UserPromptPart) and isinstance(p.content, str) and p.content.startswith(CARRIED):
        return p.content
    return None


def head_of(text: str) -> str:
    return text if len(text) <= HEAD_CHARS + 1 else text[:HEAD_CHARS] + "…"


def cut_to_heads(first: ModelRequest) -> tuple[ModelRequest, bool]:
    """The first message with each text cut to its first words; of the carried words, the newest
    only (the user's newest request), cut the same way. A compaction message's texts become one:
    its head, the user's messages and the files changed (`floors_text`), each message cut so."""
    floors = floors_text(first)
    parts: list[ModelRequestPart] = []
    for p in (first if floors is None else _with_text(first, floors)).parts:
        if isinstance(p, UserPromptPart) and isinstance(p.content, str) and not (floors and summary.compaction_part(p)):
            carried = carried_text(p)
            text = (CARRIED + summary.user_item(head_of(summary.last_item(carried[len(CARRIED):])))
                    if carried is not None else head_of(p.content))
            p = dataclasses.replace(p, content=text) if text != p.content else p
        parts.append(p)
    changed = parts != list(first.parts)
    return (dataclasses.replace(first, parts=parts) if changed else first), changed


def _with_text(first: ModelRequest, text: str) -> ModelRequest:
    """Compaction message `first` with its texts (its own, and the updates appended to it) as one, `text`."""
    parts: list[ModelRequestPart] = []
    for p in first.parts:
        if summary.compaction_part(p) and isinstance(p, UserPromptPart):
            if not text:
                continue
            p, text = dataclasses.replace(p, content=text), ""
        parts.append(p)
    return dataclasses.replace(first, parts=parts)


def floors_text(m: ModelMessage, users_kept: int | None = None, files_kept: bool = True) -> str | None:
    """The least a compaction message `m` (with the updates appended to it) says when a request too
    large for the window must cut it further than `summary.without_record`: its head, every user
    message it carries, newest first, each by its first words (`head_of`), and the files changed, by
    path. None when `m` is no compaction message. Its metadata keeps every word. Past that
    (`thinner`): only the `users_kept` newest messages, then the files by their number alone."""
    if not summary.written_by_compaction(m):
        return None
    meta = m.metadata.get(summary.MARK, {}) if isinstance(m.metadata, dict) else {}
    files = meta.get("files_changed") if isinstance(meta, dict) else None
    users = list(reversed(summary.carried_users(m)))
    cut = [head_of(u) for u in users[:users_kept]]
    lines = [f"{summary.SUMMARY_HEAD} Its record is {summary.RECORD_LEFT_OUT[1:-1]}."]
    if cut:
        lines += ["The user's messages, newest first, each cut to its first words (only these are the user's "
                  "words; the saved session keeps them whole):", *(summary.user_item(u) for u in cut)]
    if len(cut) < len(users):
        n = len(users) - len(cut)
        lines.append(f"({n} earlier message{'s' if n != 1 else ''} of the user {'are' if n != 1 else 'is'} "
                     f"{OUT_OF_REQUEST}.)")
    shown = {summary.path_line(p): a for p, a in files.items() if isinstance(p, str) and isinstance(a, list)} \
        if isinstance(files, dict) else {}
    if (changed := ledger.render(shown)) and files_kept:
        lines += [summary.FILES_NOTE, *changed]
    elif changed:
        lines.append(f"({len(changed)} file{'s were' if len(changed) != 1 else ' was'} changed; the list is "
                     f"{OUT_OF_REQUEST}.)")
    return "\n".join(lines)


def thinner(first: ModelRequest) -> Iterator[ModelRequest]:
    """A compaction message at its floors (`cut_to_heads`) that still leaves the request over the window,
    each time with less: the user's messages left out oldest first, down to the newest, then the list of
    the files changed (their number stays). A system prompt that leaves a few hundred tokens (a Codex
    rollout's 29.9K in a 31K window) sent 32 requests over the window where the newest ask and a note
    of the steps would have fit."""
    if not any(summary.compaction_part(p) for p in first.parts):  # none, or its texts left out
        return
    users = len(summary.carried_users(first))
    for kept, files in [*((n, True) for n in range(users - 1, 0, -1)), (min(users, 1), False)]:
        yield _with_text(first, floors_text(first, kept, files) or "")


def without_records(first: ModelRequest) -> tuple[ModelRequest, bool]:
    """A compaction message with its records left out (`summary.without_record`): the user's words,
    the ledger and the archive's name stay whole while what was written about them gives way."""
    if not summary.written_by_compaction(first):
        return first, False
    parts: list[ModelRequestPart] = []
    changed = False
    for p in first.parts:
        if summary.compaction_part(p) and isinstance(p, UserPromptPart) and isinstance(p.content, str):
            text = summary.without_record(p.content)
            if text != p.content:
                p, changed = dataclasses.replace(p, content=text), True
        parts.append(p)
    return (dataclasses.replace(first, parts=parts) if changed else first), changed


def texts_left_out(first: ModelRequest) -> tuple[ModelRequest, bool]:
    """The first message with its own texts replaced by one line (system prompts and the carried
    words stay)."""
    own = [p for p in first.parts if isinstance(p, UserPromptPart) and carried_text(p) is None]
    if not own:
        return first, False
    rest = [p for p in first.parts if not isinstance(p, UserPromptPart)]
    carried = [p for p in first.parts if carried_text(p) is not None]
    parts: list[ModelRequestPart] = [*rest, UserPromptPart(LEFT_OUT), *carried]
    return dataclasses.replace(first, parts=parts), True
