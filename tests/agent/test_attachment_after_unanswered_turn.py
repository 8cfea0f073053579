"""A message with `@file` after a turn that got no answer is a turn like any other.

The turn before ended without the model's answer: interrupted, failed, or its reply torn
mid-stream. The session closes it with an answer of its own (the close, or the cut reply), and the
file the next message attaches goes as a read_file call of the program's. pydantic-ai joins two
adjacent responses that came from no provider into one, so the close and the attachment's call
became one message the session file did not hold: the file was archived and rewritten as a history
changed by a program ("the conversation went on from an earlier point"), and the new turn's
checkpoint was dropped with a warning that it no longer had its place (`/rewind` lost that turn).
"""

from __future__ import annotations

import pytest

from compact_agent.agent.run.stream_events import problem_line
from compact_agent.session.store import SessionStore
from compact_agent.ui.history_view import message_rows
from tests.e2e.test_rewind_after_compaction import session
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Fault, Reply

REFUSED = {"error": {"message": "unsupported parameter", "type": "invalid_request_error"}}


def refused_first(req: ChatRequest) -> Reply:
    if "first" in req.last_user_text():
        return Reply.error(400, REFUSED)
    return Reply.text("ok")


def torn_first(req: ChatRequest, attempt: int) -> Fault | None:
    return Fault.reset_mid_stream() if "first" in req.last_user_text() else None


@pytest.mark.parametrize("how", ["failed", "torn"])
async def test_an_attachment_after_a_turn_without_answer_keeps_the_session_and_its_checkpoint(tmp_path, how):
    server = FakeOpenAIServer(refused_first) if how == "failed" else \
        FakeOpenAIServer(lambda req: Reply.text("a streamed answer " * 20), faults=torn_first)
    with server:
        s = session(tmp_path, server)
        events: list = []
        s._user_on_event = events.append
        (s.cwd / "notes.txt").write_text("some notes\n")
        try:
            with pytest.raises(Exception):  # noqa: B017, PT011 - the turn's own error, whichever it is
                await s.run_turn("first", on_text=lambda text: None)
            await s.run_turn("look at @notes.txt", typed="look at @notes.txt")
            said = [problem_line(e) for e in events if e.layer == "checkpoints"]
            assert said == [], said
            assert [c.prompt for c in s.checkpoints.list()] == ["first", "look at @notes.txt"]
            saved = SessionStore(s.store.root, s.session_id).load()
            assert saved.boundaries == []  # nothing archived, nothing rewritten
            rows = [row for m in s.messages for row in message_rows(m)]
            assert ("attached", "notes.txt") in rows, rows
            assert server.rejected == [] if how == "torn" else len(server.rejected) == 1
            s.rewind(1)  # back to before the message with the attachment: the close is kept, or added again
            assert "look at @notes.txt" not in str(s.messages)
        finally:
            s.close()
