"""/cost names what kept tokens out of the requests: with no compaction made, only the trimming of
each request did (it said "compaction kept ~N tokens" of a session that had never compacted)."""

from __future__ import annotations

import io

from rich.console import Console

from compact_agent.agent.accounting.costs import Entry, report
from compact_agent.models import REGISTRY
from compact_agent.ui.session_views import render_cost
from tests.fakes.openai_server import FakeOpenAIServer

from .test_commands_terminal import answer, session, show


def text(compactions: int) -> str:
    r = report([Entry("main", REGISTRY["deepseek-chat"], 40_000, 30_000, 0, 500, 6_000)])
    c = Console(record=True, width=200, file=io.StringIO(), markup=False)
    c.print(render_cost(r, compactions=compactions))
    return c.export_text()


def test_without_a_compaction_the_trimming_is_named_not_compaction():
    out = text(0)
    assert "compaction kept" not in out
    assert ("no compaction yet; trimming what was sent (large tool results previewed, old tool results cleared, "
            "old rounds folded) kept ~6,000 input tokens out of the requests") in out


def test_with_compactions_both_are_named():
    assert "2 compactions and trimming what was sent kept ~6,000 input tokens out of the requests" in text(2)
    assert "1 compaction and trimming what was sent kept ~6,000" in text(1)


async def test_the_cost_command_counts_the_sessions_compactions(tmp_path):
    with FakeOpenAIServer(answer) as server:
        s = session(tmp_path, server)
        try:  # a request the layers trimmed, and no compaction in the session
            s.ext.ledger.entries.append(Entry("main", s.info, 20_000, 0, 0, 100, 3_000))
            out = " ".join((await show(s, "/cost")).split())
            assert "no compaction yet; trimming what was sent" in out and "kept ~3,000 input tokens" in out
            assert "compaction kept" not in out
        finally:
            s.close()


def test_the_saving_is_priced_against_requests_that_could_have_been_sent():
    """A request whose history, whole, would have been over the window could not have been sent:
    its saving counts up to a full window, not the whole history (the net saving was over a run
    that could not have happened), and the line says what it compares against."""
    info = REGISTRY["deepseek-chat"]
    room = info.window - 40_000
    fits = Entry("main", info, 40_000, 0, 0, 500, room // 2)
    over = Entry("main", info, 40_000, 0, 0, 500, 5 * info.window)
    r = report([fits, over])
    per_token = info.input / 1e6
    assert r.over_window == 1 and r.avoided_tokens == room // 2 + 5 * info.window
    assert abs(r.avoided_cost - (room // 2 + room) * per_token) < 1e-9
    c = Console(record=True, width=400, file=io.StringIO(), markup=False)
    c.print(render_cost(r, compactions=1))
    out = c.export_text()
    assert ("against sending each request whole (1 request would not have fit the window whole: counted as a "
            f"full window): ≈ ${r.avoided_cost:.4f} saved at this session's cache mix") in out, out
