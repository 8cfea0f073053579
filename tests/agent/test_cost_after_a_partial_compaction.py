"""/cost counts what a partial compaction (`/compact --up-to N`) took out of the history as saved,
as it counts any other compaction's (test_cost_after_compaction.py).

Its figures count the request the view layers shape, the kept tail's long command output as the
preview every request sends. The ledger took its 'after' from those figures, where every other
compaction gives the history's saved size: the tail's preview saving was counted as kept out by
the compaction, and again in each later request's layer saving."""

from __future__ import annotations

from pathlib import Path

from compact_agent.context import CompactionResult, Event
from tests.e2e.scripted import is_notes_request, is_summary_request
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply
from tests.reliability.common import session


def model(req: ChatRequest) -> Reply:
    if is_summary_request(req):
        return Reply.text("<summary>We talked, then ran a long command.</summary>")
    if is_notes_request(req):
        return Reply.text("")
    if req.messages[-1].get("role") != "user":
        return Reply.text("done")
    if "big" in req.last_user_text():
        return Reply.tools([("bash", {"command": "seq 1 20000"})])  # its output spills to a file (L1)
    return Reply.text("ok " * 400)


async def test_the_ledger_counts_the_history_a_partial_compaction_removed(tmp_path: Path) -> None:
    with FakeOpenAIServer(model) as server:
        s = session(tmp_path / "home", tmp_path / "project", server, window=32_000)
        try:
            for prompt in ("say a lot", "say more", "run the big command", "thanks"):
                await s.run_turn(prompt)
            removed, hidden = s.ext.ledger.removed, s.ext.ledger.last_layer_savings
            assert hidden > 0  # the long output's preview: the layers keep the rest of it out
            result = await s.compact(pivot=4, direction="up_to")
            saved = result.event.detail.get("history_after")
            assert isinstance(saved, int) and saved > result.tokens_after, result.event.detail  # the output, whole
            assert s.ext.ledger.removed == removed + result.tokens_before - saved + hidden
        finally:
            await s.aclose()


async def test_a_kept_tail_larger_than_the_request_replaced_counts_only_what_the_history_lost(tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        s = session(tmp_path / "home", tmp_path / "project", server)
        try:
            s.ext.ledger.last_layer_savings = 7_500  # a long output the request sent as its preview
            event = Event("compact", "full", 2_000, 1_500, detail={"history_after": 9_000})
            await s.ext.after_compact(CompactionResult([], "auto", "full", 2_000, 1_500, None, "", 3, event))
            # a 9,500-token history (2,000 sent), 9,000 of it left: 500 removed (not 7,500)
            assert s.ext.ledger.removed == 500
        finally:
            await s.aclose()
