"""What `-c` shows of a session last compacted: the round a compaction keeps verbatim is carried in
its message, after the summary, and the answer follows it. The last exchanges left that prompt out
with the summary, so a session resumed right after a compaction showed nothing of where the work
stopped. A prompt kept before `/compact --from N`, whose answer went into the summary, is not shown
as one that got no answer."""

from __future__ import annotations

from compact_agent.ui.history_view import last_exchanges
from tests.e2e.scripted import is_notes_request, is_summary_request
from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .test_commands_terminal import session


def answer(req) -> Reply:
    if is_summary_request(req):
        return Reply.text("<summary>1. Primary Request and Intent: short summary.</summary>")
    if is_notes_request(req):
        return Reply.text("")
    return Reply.text(f"answer to {req.last_user_text()} " + "ok " * 1500)


async def test_the_round_a_compaction_kept_is_the_last_exchange(tmp_path) -> None:
    with FakeOpenAIServer(answer) as server:
        s = session(tmp_path, server)
        try:
            await s.run_turn("turn a")
            await s.run_turn("turn b")
            await s.compact()
            assert len(s.messages) == 2, s.messages  # the summary's message, carrying `turn b`, and its answer
            shown = last_exchanges(s.messages)
        finally:
            s.close()
    assert shown[0] == "› turn b" and shown[1].startswith("  answer to turn b ok ok"), shown
    assert len(shown) == 2, shown


async def test_a_prompt_whose_answer_went_into_the_summary_is_not_unanswered(tmp_path) -> None:
    with FakeOpenAIServer(answer) as server:
        s = session(tmp_path, server)
        try:
            for words in ("first one", "second one", "third one"):
                await s.run_turn(words)
            await s.compact(pivot=3, direction="from")  # `/compact --from 3`: `second one` kept, its answer summarised
            shown = last_exchanges(s.messages)
        finally:
            s.close()
    assert shown[0] == "› first one" and shown[1].startswith("  answer to first one"), shown
    assert len(shown) == 2 and "no answer" not in " ".join(shown), shown
