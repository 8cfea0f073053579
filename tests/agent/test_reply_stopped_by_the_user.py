"""A reply the user stops (Esc, Ctrl-C) while it is being written is kept as far as it came.

The REPL had shown 'word0 word1 … word13' and then 'interrupted'; the session kept nothing of it:
`/history` and `-c` showed the prompt with no answer, and the model, told only that the turn ended
before an answer, could not know what the user had read ('go on from where you stopped'). A reply
the stream tore was kept, marked as cut; one the user stopped now is too, marked as stopped.
"""

from __future__ import annotations

import asyncio

import pytest

from compact_agent.agent.run.unfinished import STOPPED
from compact_agent.session.store import SessionStore
from compact_agent.ui.history_view import last_exchanges, message_rows
from tests.e2e.test_rewind_after_compaction import session
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, message_text

WORDS = " ".join(f"word{i}" for i in range(400))


def writer(req: ChatRequest) -> Reply:
    return Reply.text(WORDS if "tell me" in req.last_user_text() else "ok")


async def stopped_while_writing(s) -> str:
    """Run 'tell me' and stop it (as Esc does: the turn's task cancelled) once some text came."""
    seen: list[str] = []
    task: asyncio.Task | None = None

    def on_text(piece: str) -> None:
        seen.append(piece)
        if task is not None:
            task.cancel()

    task = asyncio.ensure_future(s.run_turn("tell me", on_text=on_text))
    with pytest.raises(asyncio.CancelledError):
        await task
    return "".join(seen)


async def test_the_text_shown_before_the_stop_is_kept_and_the_model_reads_it(tmp_path):
    with FakeOpenAIServer(writer) as server:
        s = session(tmp_path, server)
        try:
            shown = await stopped_while_writing(s)
            assert shown and len(shown) < len(WORDS)
            saved = SessionStore(s.store.root, s.session_id).load().messages
            who, what = [row for m in saved for row in message_rows(m)][-1]
            kept = what.removesuffix(" (you stopped this reply here; it is incomplete)")
            # what came before the stop: all the user was shown, and at most the pieces the stream
            # had in hand when it was stopped (a loaded machine hands over several at once)
            assert who == "assistant" and kept != what and kept.startswith(shown.strip()), (shown, what)
            assert WORDS.startswith(kept) and len(kept) < len(WORDS)
            answer, note = last_exchanges(saved)[-2:]  # as -c shows the session's last exchanges
            assert answer.startswith("  word0 word1") and note == "  (you stopped this reply here; it is incomplete)"
            await s.run_turn("thanks")
        finally:
            s.close()
    sent = [message_text(m) for m in server.requests[-1].messages if m.get("role") == "assistant"]
    assert sent == [f"{kept}\n\n{STOPPED}"]  # what the user read, and that it was stopped


async def test_the_same_message_sent_again_retries_the_turn_without_the_stopped_reply(tmp_path):
    with FakeOpenAIServer(writer) as server:
        s = session(tmp_path, server)
        try:
            await stopped_while_writing(s)
            await s.run_turn("tell me")
        finally:
            s.close()
    last = server.requests[-1].messages
    assert [m["role"] for m in last if m.get("role") != "system"] == ["user"]  # the message once, no half answer
