"""/compact counts the tail a compaction keeps as the next request sends it: a long command output
there as its preview, as /context counts the context it is compared with.

Three short turns, then a turn stopped right after a command whose long output the request sends as
its preview (the output whole in a file): /context said 2.8k, and /compact refused before asking for
a summary: 'a compaction would keep at least 9,293 tokens, more than the 2,771 in use now ... the
newest 2 messages 7,526' -- the output counted whole, which no request sends, before or after the
compaction. A compaction refused once its summary came back (too long for what it frees) named the
same whole output as its tail, and the line shared the gap out over every part: 'instructions and
tools 521' of 1,166."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic_ai.exceptions import UsageLimitExceeded

from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from compact_agent.context import NotSmaller
from tests.e2e.scripted import is_notes_request, is_summary_request
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply
from tests.reliability.common import session


def model(summary: str) -> Callable[[ChatRequest], Reply]:
    def answer(req: ChatRequest) -> Reply:
        if is_summary_request(req):
            return Reply.text(f"<summary>{summary}</summary>")
        if is_notes_request(req):
            return Reply.text("")
        if "big" in req.last_user_text():
            return Reply.tools([("bash", {"command": "seq 1 20000"})])  # its output spills to a file (L1)
        return Reply.text("ok " * 200)
    return answer


async def stopped_after_a_long_output(s: AgentSession) -> int:
    """Three short turns, then one stopped with a long output unanswered: the context, as /context counts it."""
    for k in range(3):
        await s.run_turn(f"question {k} " + "q " * 300)
    with pytest.raises(UsageLimitExceeded):  # the REPL says so; the work so far is saved
        await s.run_turn("run the big command")
    before = s.context_tokens()
    assert before < 4_000  # the output as its preview
    return before


async def test_a_compaction_is_not_refused_for_a_tail_counted_whole(tmp_path: Path) -> None:
    with FakeOpenAIServer(model("We answered three questions, then ran a long command.")) as server:
        s = session(tmp_path / "home", tmp_path / "project", server, window=32_000,
                    settings=Settings(max_requests_per_turn=1))
        try:
            before = await stopped_after_a_long_output(s)
            result = await s.compact()
            assert result.tokens_after < before
            assert result.event.detail["parts"]["verbatim"] < 1_000  # the output's preview, not 7.5k
            await s.run_turn("thanks")  # and the next request sends the kept output as its preview still
            sent = [str(m.get("content")) for m in server.requests[-1].messages if m.get("role") == "tool"]
            assert sent and all(len(c) < 10_000 for c in sent), [len(c) for c in sent]
        finally:
            await s.aclose()


async def test_a_refusal_after_the_summary_names_the_tail_as_sent(tmp_path: Path) -> None:
    with FakeOpenAIServer(model("We did things and more things. " * 400)) as server:
        s = session(tmp_path / "home", tmp_path / "project", server, window=32_000,
                    settings=Settings(max_requests_per_turn=1))
        try:
            await stopped_after_a_long_output(s)
            with pytest.raises(NotSmaller) as refused:
                await s.compact()
            parts, after = refused.value.parts, refused.value.after
            assert parts is not None and parts["verbatim"] < 1_000, parts
            assert parts["fixed"] == s.cm.compactor.scaled(s.cm.overhead)
            assert abs(parts["summary"] + parts["verbatim"] + parts["fixed"] + parts["other"] - after) <= 3, (parts, after)
        finally:
            await s.aclose()
