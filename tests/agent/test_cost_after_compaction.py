"""/cost counts what a compaction took out of the history as saved.

A compaction's figures count the request the view layers shape (its kept tail's long output as the
preview sent); the next requests' layer savings count that tail's saving again. Taken from those
figures, what /cost says compaction kept out grew by the tail's saving on every later request."""

from __future__ import annotations

from pathlib import Path

from compact_agent.context import CompactionResult, Event
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.reliability.common import session


async def test_the_ledger_counts_the_history_a_compaction_removed(tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        s = session(tmp_path / "home", tmp_path / "project", server)
        try:
            s.ext.ledger.last_layer_savings = 1_000  # the layers kept this out of the request before it
            event = Event("compact", "full", 10_000, 2_000, detail={"history_after": 6_000})
            result = CompactionResult([], "auto", "full", 10_000, 2_000, None, "", 3, event)
            await s.ext.after_compact(result)
            # 10,000 sent of an 11,000-token history, 6,000 of it left: 5,000 removed (not 9,000)
            assert s.ext.ledger.removed == 5_000
        finally:
            await s.aclose()
