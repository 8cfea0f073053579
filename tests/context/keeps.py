"""A stand-in for the compactor as the schedule sees it: its one answer to what a compaction now
would keep (`Compactor.preview` → `KeepPlan`), with sizes fixed by the test."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any


class Keeps:
    """A `KeepPlan` of fixed sizes: `rebuild` tokens after the compaction whatever the summary's
    size, a verbatim tail of `tail_tokens`, a record of `record` tokens (None: no record would list
    every step), `kept_head` tokens of a compaction message the history starts with. `record_rebuild`:
    the rebuild with the record instead of a summary, when it differs. `asked` counts how often the
    record's size was asked for."""

    def __init__(self, rebuild: int, tail_tokens: int = 0, record: int | None = None) -> None:
        self.size, self.tail_tokens, self.record, self.asked = rebuild, tail_tokens, record, 0
        self.kept_head = 0
        self.record_rebuild: int | None = None

    def rebuild(self, summary_tokens: int) -> int:
        if self.record_rebuild is not None and summary_tokens == self.record:
            return self.record_rebuild
        return self.size

    @property
    def record_tokens(self) -> int | None:
        self.asked += 1
        return self.record


def compactor(rebuild: int, tail_tokens: int = 0, record: int | None = None) -> Any:
    """A compactor stand-in whose `preview` gives `keeps` (a `Keeps`) for any history."""
    keeps = Keeps(rebuild, tail_tokens, record)
    return SimpleNamespace(ratio=1.0, keeps=keeps, preview=lambda messages, overhead: keeps)
