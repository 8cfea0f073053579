"""What a compaction gives back, or raises, and the summarizer it is handed.

Below the compactor, the notes and the schedule, which all speak of a `CompactionResult` and none
of which needs the compactor to say so.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic_ai.messages import (
    ModelMessage,
)

from ..plumbing.events import Event

Summarize = Callable[[list[ModelMessage], str], Awaitable[str]]


class CompactionError(RuntimeError):
    """A compaction that did not happen; the history is unchanged."""


class NotSmaller(CompactionError):
    """The compacted history would be no smaller than the one it replaces."""


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
