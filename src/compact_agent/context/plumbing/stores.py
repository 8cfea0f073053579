"""Where a conversation's history is kept: the store protocol and the in-memory store.

The persisted history is the truth; the pipeline appends every message to a store and, at a
compaction, archives the full transcript before rewriting the history. A library must not touch the
disk unless asked to, so the default store keeps all of it in memory; the agent's JSONL session
(`compact_agent.session.store.SessionStore`) is another implementation of the same protocol.

A store may also offer side files (`side_dir(name) -> Path`): then the tool-result budget spills
oversized results there (the model can read them back) and context collapse keeps its commit log
there. Without them, oversized results are cut to a head-and-tail preview and the log stays in memory.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from pydantic_ai.messages import ModelMessage

from .settings import said_with_type


@runtime_checkable
class HistoryStore(Protocol):
    """What the pipeline needs to keep a conversation: append, archive, rewrite."""

    def append(self, messages: Sequence[ModelMessage]) -> None:
        """Add messages to the end of the history (called before every model request and at run end).

        Raise if they could not be saved (anything: the caller gets it as `HistoryNotSaved`, and
        nothing is sent that the store does not hold)."""
        ...

    def archive(self) -> Path | None:
        """Keep a copy of the whole history before a compaction rewrites it.

        Return the file the copy is in (the summary tells the model where it is, so it can read it
        back; a string naming it is taken too) or None when the copy is not a file the model can read. Raise (an `OSError`, say) if the
        copy could not be made: the compaction is then abandoned and nothing is rewritten.
        """
        ...

    def rewrite(self, boundary: dict[str, Any], messages: Sequence[ModelMessage]) -> None:
        """Replace the history by `messages` after a compaction; `boundary` describes the compaction
        (trigger, strategy, tokens_before, tokens_after, archive, time, messages_summarized)."""
        ...


@runtime_checkable
class SideFiles(Protocol):
    """A store that offers a private folder per purpose ("tool-results", "collapse")."""

    dir: Path

    def side_dir(self, name: str) -> Path: ...


@dataclass
class InMemoryStore:
    """The default store: the history, every archived transcript and every boundary, in memory.

    `messages` is the current (compacted) history, `boundaries[i]` what the i-th compaction did,
    `archives` the full history before each of the latest `max_archives` compactions (oldest
    first; `archives_dropped` older ones were let go). Each archive is a deep copy of a whole
    transcript, and a capability keeps up to 64 conversations: unbounded, a long session held every
    transcript it ever had (200 steps: 30 copies, 4.4 MB). Nothing is written anywhere; copy what
    you need to keep before the process ends, or give a store of your own.
    """

    messages: list[ModelMessage] = field(default_factory=list)
    archives: list[list[ModelMessage]] = field(default_factory=list)
    boundaries: list[dict[str, Any]] = field(default_factory=list)
    max_archives: int = 8
    archives_dropped: int = 0

    def __post_init__(self) -> None:
        # Checked here: a string failed every compaction later, at its archive, with a bare comparison error.
        if isinstance(self.max_archives, bool) or not isinstance(self.max_archives, int):
            raise TypeError(f"InMemoryStore.max_archives must be a whole number, 0 or more, "
                            f"not {said_with_type(self.max_archives)}")
        if self.max_archives < 0:
            raise ValueError(f"InMemoryStore.max_archives must be a whole number, 0 or more, not {self.max_archives}")

    def append(self, messages: Sequence[ModelMessage]) -> None:
        self.messages.extend(messages)

    def load_messages(self) -> list[ModelMessage]:
        """What it holds: a new `ContextManager` given this store resumes onto it."""
        return list(self.messages)

    def archive(self) -> Path | None:
        # Messages are mutable dataclasses and the run goes on with some of the same objects: the
        # archive must not change with them.
        self.archives.append(copy.deepcopy(self.messages))
        excess = len(self.archives) - max(0, self.max_archives)
        if excess > 0:
            del self.archives[:excess]
            self.archives_dropped += excess
        return None

    def rewrite(self, boundary: dict[str, Any], messages: Sequence[ModelMessage]) -> None:
        self.boundaries.append(dict(boundary))
        self.messages = list(messages)
