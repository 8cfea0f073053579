"""A `/rewind` rewrites the session with a record that had no time: resumed, the session took its
size from the usage report of a request made before the rewind (one that held the turns it took
back), as if nothing had been undone. The record gets the store's time, so a resumed session's
size is the kept conversation's until its next request reports one."""

from __future__ import annotations

from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from compact_agent.agent.accounting.context_report import picture
from compact_agent.session.store import SessionStore, load_session_file
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.ui.test_commands_terminal import session

REWIND = {"trigger": "rewind", "strategy": "rewind", "tokens_before": 0, "tokens_after": 0, "archive": "", "time": ""}


def test_a_record_without_a_time_gets_the_stores(tmp_path):
    s = SessionStore(tmp_path, "s1", clock=lambda: "2026-03-04T05:06:07+00:00")
    kept = [ModelRequest(parts=[UserPromptPart("q")]), ModelResponse(parts=[TextPart("a")])]
    s.rewrite(REWIND, kept)
    [b] = load_session_file(s.path).boundaries
    assert b.time == "2026-03-04T05:06:07+00:00" and b.when is not None
    s.rewrite({**REWIND, "strategy": "full", "time": "2026-01-01T00:00:00+00:00"}, kept)  # one with its own keeps it
    assert load_session_file(s.path).boundaries[-1].time == "2026-01-01T00:00:00+00:00"


async def test_a_session_resumed_after_a_rewind_shows_the_kept_conversations_size(tmp_path):
    with FakeOpenAIServer(lambda req: Reply.text("word " * 800)) as server:
        s = session(tmp_path, server)
        try:
            await s.run_turn("turn a")
            await s.run_turn("turn b")
            s.rewind(1)
        finally:
            s.close()
        resumed = session(tmp_path, server, continue_last=True)
        try:
            after = picture(resumed)
            assert not after.anchored  # the report of a request before the rewind does not stand for it
            await resumed.run_turn("turn b again")
            sent = resumed.messages[-1].usage.input_tokens  # what the next request proved
            assert abs(after.used - sent) < 0.1 * sent, (after.used, sent)
        finally:
            resumed.close()
