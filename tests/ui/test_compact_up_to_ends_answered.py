"""`/compact --up-to N` at its last number (the count of messages, which the range it states
includes) summarised the whole conversation, the last answer too: the history ended at the
summary's request, and the next turn closed it as one that 'ended before an answer', which the
model read, of a turn that had its answer. Now, as `--from N` does, it keeps that answer after the
summary, and says the boundary moved for it."""

from __future__ import annotations

from compact_agent.agent.run.unfinished import UNANSWERED
from compact_agent.context.plumbing import rounds
from compact_agent.ui.compact_command import moved_line
from tests.e2e.scripted import is_notes_request, is_summary_request
from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .test_commands_terminal import session, show


def answer(req) -> Reply:
    if is_summary_request(req):
        return Reply.text("<summary>1. Primary Request and Intent: answer three prompts.</summary>")
    if is_notes_request(req):
        return Reply.text("")
    return Reply.text(f"answer to {req.last_user_text()} " + "ok " * 1500)


async def test_the_turn_after_compact_up_to_the_end_follows_the_last_answer(tmp_path) -> None:
    (tmp_path / "project").mkdir()
    with FakeOpenAIServer(answer) as server:
        s = session(tmp_path, server, permission_mode="yes")
        try:
            for ask in ("first one", "second one", "third one"):
                await s.run_turn(ask)
            out = await show(s, f"/compact --up-to {len(s.messages)}")
            assert "compacted (manual, partial_up_to)" in out, out
            assert "--up-to 6 became --up-to 5: the last answer stays verbatim" in out, out
            assert rounds.unpaired(s.messages) == (set(), set())
            await s.run_turn("fourth one")
        finally:
            s.close()
    sent = server.requests[-1].messages
    assert not any(UNANSWERED in str(m.get("content")) for m in sent), sent
    assert sent[-2].get("role") == "assistant" and "answer to third one" in str(sent[-2].get("content")), sent[-2:]


def test_a_boundary_moved_for_a_call_says_the_call() -> None:
    parts = {"summary": 300, "verbatim": 900, "verbatim_messages": 2}
    assert moved_line(parts, 3, "up_to", 6) == "  --up-to 3 became --up-to 4: a tool call stays with its result"
    assert moved_line(parts, 4, "up_to", 6) is None
