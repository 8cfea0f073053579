"""What a compaction gives back, or raises, and the summarizer it is handed; and the last step of
one made, its archive (`archived`).

Below the compactor, the notes and the schedule, which all speak of a `CompactionResult` and none
of which needs the compactor to say so.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pydantic_ai.messages import (
    ModelMessage,
)

from ..plumbing.events import Event, one_line

Summarize = Callable[[list[ModelMessage], str], Awaitable[str]]

#: Tokens a manual compaction (`compact_now`, /compact) is to free, as the next request sends its
#: history: one freeing less keeps a shorter tail where one frees more (`Compactor.compact`'s
#: `short_of`). Right after a compaction, the longest tail left a summary about all there was to
#: free: a second /compact in a row asked for one and freed 39 tokens of 4,354.
LEAST_FREED = 300


class SentSize(Protocol):
    """The size of a request of `messages` as the view layers would send it, the fixed prompt
    included (`Keeper.sent_size`), with the tool results of the call ids `kept` sent whole: those a
    compaction keeps for the model, whose earlier clearing it lifts once it goes ahead
    (`CompactionResult.kept`)."""

    def __call__(self, messages: Sequence[ModelMessage], kept: Collection[str] = ()) -> int: ...


class CompactionError(RuntimeError):
    """A compaction that did not happen; the history is unchanged."""


class CompactionBlocked(CompactionError):
    """A `before_compact` handler refused this compaction (raise it there to block one), or a
    preview was not confirmed: the history was not rewritten (a declined preview's archive copy
    stays in the store). `reason` is the handler's, for the user.

    An automatic compaction that is blocked is skipped, not counted as a failure; a request over
    the hard limit is then shrunk to fit instead (view only), so no request is sent over the
    window. `compact_now` raises it.
    """

    def __init__(self, reason: str = "") -> None:
        super().__init__(f"compaction blocked: {reason}" if reason else "compaction blocked")
        self.reason = reason


class SummaryNotSent(CompactionError):
    """A summary request that would not fit the window even with its messages cut (what it sends
    whole fills it: the summary's own instruction, and the instructions, system prompt and tool
    definitions where the agent has them; the line names those that apply): not sent, which the
    provider would have refused as too long."""


class ArchiveNotWritten(CompactionError):
    """The store's `archive()` raised (a full disk, a folder not writable): nothing was rewritten.
    An automatic compaction this paused is tried again after a few requests (compacting.py): the
    space may have been freed since."""


class NotSmaller(CompactionError):
    """The compacted history would be no smaller than the one it replaces. `parts` says what it
    would have kept (provider tokens: "summary", "files" re-read with their "file_paths", "other"
    context restored, the "verbatim" tail of "verbatim_messages", the "fixed" instructions and tools).
    `unasked`: known before a summary was asked for, so `after` is the least it could be, and
    "summary" the summary message's frame (the user's messages, the files changed) without one."""

    def __init__(self, message: str, *, before: int = 0, after: int = 0, parts: dict[str, Any] | None = None,
                 unasked: bool = False) -> None:
        super().__init__(message)
        self.before, self.after, self.parts, self.unasked = before, after, dict(parts or {}), unasked


class RecordTooWeak(NotSmaller):
    """A record standing in for a summary the window forced, which would leave the next request (this
    one after it, and one request's growth) over the hard limit: it frees too little for the next
    step's reply, and that step would compact again (compacting.py `_record_instead`). Not made."""


@dataclass
class CompactionResult:
    messages: list[ModelMessage]
    trigger: str
    strategy: str
    tokens_before: int
    tokens_after: int
    archive: Path | None
    summary: str
    summarized: int  # how many messages the summary replaced
    event: Event = field(default_factory=lambda: Event("compact", "none"))
    # Set by the compactor while the archive is not written yet: told the archive's path, names it
    # in the summary message (compactor.py). None once it is (or for a result made elsewhere).
    name_archive: Callable[[Path | None], None] | None = field(default=None, repr=False, compare=False)
    # The call ids of the tool results this compaction kept for the model, which is still using them
    # (keep.py `kept_results`): sent whole, and measured so. A view layer's decision that hid one
    # before (microcompact's clearing) is lifted once the compaction goes ahead (layers/frozen.py
    # `after_compaction`); the results earlier compactions kept keep theirs.
    kept: frozenset[str] = frozenset()


def archived(result: CompactionResult, archive: Callable[[], Path | None],
             vet: Callable[[CompactionResult], None] | None = None) -> CompactionResult:
    """`result`, going ahead: `vet` had no objection, and the full transcript is archived (a
    failure stops it: nothing was rewritten), its copy named in the summary message."""
    if vet is not None:
        vet(result)
    try:
        path = archive()
    except Exception as e:  # noqa: BLE001 - a store of the caller's own may raise anything
        raise ArchiveNotWritten(f"could not archive the transcript, so the session was not rewritten: {one_line(e)}"
                                ) from e
    if isinstance(path, str | os.PathLike):  # a store of the caller's own may name its copy by a string
        path = Path(path) if str(path) else None
    elif path is not None:
        raise CompactionError(f"the store's archive() returned {type(path).__name__}, not the path of its copy "
                              "or None, so the session was not rewritten")
    name, result.name_archive = result.name_archive, None
    if name is not None:
        name(path)
    return result


class NoSummary(Exception):
    """A record could not stand in where a summary left the context no smaller (the compactor's
    `record_fallback`): the fallback asks for no second summary."""


async def no_summary(sent: list[ModelMessage], prompt: str) -> str:
    """The summarizer of that fallback: it never asks a model."""
    raise NoSummary
