"""A /compact (and `compact_now`) whose summary, beside the longest tail, frees under `LEAST_FREED`
keeps a shorter tail, as one left no smaller does (compactor.py `short_of`).

The check before the summary request (small_gain.py) weighs the least a compaction could keep over
the thrash guard's shorter tails, while the compaction kept its first, longer tail whenever the
summary left the result smaller at all: right after a compaction (its summary, then one short
exchange) a second /compact asked for a summary and freed 23 tokens of 1,855 (a trial's: 39 of
4,354), and the longest tail that freed a little was kept where a shorter one freed hundreds. Where
no tail frees as much, the one that comes closest is kept: the summary is paid for, and the context
smaller."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from compact_agent.agent.run.small_gain import LEAST_FREED
from tests.e2e.scripted import is_notes_request, is_summary_request
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply
from tests.reliability.common import session

LONG = "<summary>1. Primary Request and Intent: read files, talk about them. " + "detail " * 60 + "</summary>"


def model(summary: str) -> Callable[[ChatRequest], Reply]:
    def reply(req: ChatRequest) -> Reply:
        if is_summary_request(req):
            return Reply.text(summary)
        if is_notes_request(req):
            return Reply.text("")
        last = req.last_user_text()
        asked = max(i for i, m in enumerate(req.messages) if m.get("role") == "user")
        if last.startswith("read ") and not any(m.get("role") == "tool" for m in req.messages[asked:]):
            return Reply.tools([("read_file", {"path": last.split()[1]})])
        return Reply.text("ok " * 200)
    return reply


@pytest.mark.parametrize("between", [["chat 9"], []], ids=["a-shorter-tail-frees-enough", "none-does"])
async def test_a_second_compact_in_a_row_keeps_the_tail_that_frees_enough(tmp_path: Path, between: list[str]) -> None:
    project = tmp_path / "project"
    project.mkdir()
    for i in range(4):
        (project / f"f{i}.txt").write_text("\n".join(f"line {j} of file {i} with some words" for j in range(150)))
    with FakeOpenAIServer(model(LONG)) as server:
        s = session(tmp_path / "home", project, server, window=16_000)
        try:
            for i in range(4):
                await s.run_turn(f"read f{i}.txt")
                await s.run_turn(f"chat {i}")
            first = await s.compact()
            assert first.tokens_before - first.tokens_after >= LEAST_FREED
            for line in between:
                await s.run_turn(line)
            kept = len(s.messages)
            second = await s.compact()  # the longest tail freed 20 tokens (24 with no turn between)
            freed = second.tokens_before - second.tokens_after
            if between:  # a shorter tail frees enough: it is the one kept
                assert freed >= LEAST_FREED, (second.tokens_before, second.tokens_after)
            else:  # none does: the shortest comes closest (181)
                assert LEAST_FREED // 2 < freed < LEAST_FREED, (second.tokens_before, second.tokens_after)
            assert len(s.messages) < kept  # the tail shorter
            assert len(s.store.archives()) == 2
        finally:
            await s.aclose()
