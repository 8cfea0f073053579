"""After `/compact --from N`, the next turn sends the conversation as a finished turn left it: the
last answer after the summary, and no close saying the turn 'ended before an answer', which the
model read and /history listed as `no answer` of a turn that had its answer."""

from __future__ import annotations

from compact_agent.agent.run.unfinished import UNANSWERED
from compact_agent.context.plumbing import rounds
from tests.e2e.scripted import is_notes_request, is_summary_request
from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .test_commands_terminal import session, show


def answer(req) -> Reply:
    if is_summary_request(req):
        return Reply.text("<summary>1. Primary Request and Intent: read notes.txt.</summary>")
    if is_notes_request(req):
        return Reply.text("")
    if req.messages[-1].get("role") == "tool":
        return Reply.text("notes.txt says hello")
    if "read" in req.last_user_text():
        return Reply.tools([("read_file", {"path": "notes.txt"})])
    return Reply.text(f"answer to {req.last_user_text()} " + "ok " * 1500)


async def test_the_turn_after_compact_from_follows_the_last_answer(tmp_path) -> None:
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "notes.txt").write_text("hello\n")
    with FakeOpenAIServer(answer) as server:
        s = session(tmp_path, server, permission_mode="yes")
        try:
            await s.run_turn("first one")
            await s.run_turn("second one")
            await s.run_turn("read notes.txt")
            out = await show(s, "/compact --from 2")
            assert "compacted (manual, partial_from)" in out and "became" not in out, out
            assert rounds.unpaired(s.messages) == (set(), set())
            await s.run_turn("fourth one")
            listed = await show(s, "/history")
        finally:
            s.close()
    sent = server.requests[-1].messages
    assert not any(UNANSWERED in str(m.get("content")) for m in sent), sent
    assert (sent[-2].get("role"), sent[-2].get("content")) == ("assistant", "notes.txt says hello"), sent[-2:]
    assert "no answer" not in listed, listed
    rows = [line.split(None, 2)[1:] for line in listed.splitlines() if line[:6].strip().isdigit()]
    assert [r[0] for r in rows[-4:]] == ["summary", "assistant", "you", "assistant"], listed


def test_the_preview_counts_the_kept_answer_apart_from_the_first_messages(tmp_path) -> None:
    """`--from 2` keeps the first 2 messages and the last answer: said so, and not as `--from 2
    became --from 3`, which is what counting the answer among the first messages gave."""
    from compact_agent.ui.compact_command import kept_words, moved_line

    parts = {"summary": 300, "verbatim": 900, "verbatim_messages": 3, "head_messages": 2}
    assert kept_words(parts, tmp_path, "partial_from") == (
        "the summary 300 · the first 2 messages and the last answer verbatim 900 tokens")
    assert moved_line(parts, 2, "from", 6) is None
    assert moved_line({**parts, "head_messages": 1}, 2, "from", 6) == (
        "  --from 2 became --from 1: a tool call stays with its result")
