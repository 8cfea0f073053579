"""`/history` of a session whose last turn a signal (SIGTERM, SIGHUP) ended while its request was out
says so under the prompt, as the resumed session's view does. Since the signal is the file's mark
(last_run.SIGNALLED) rather than a close message, which the next turn writes, `/history` read the
messages alone and showed the prompt with nothing after it, until the next message."""

from __future__ import annotations

from pydantic_ai.messages import ModelRequest, UserPromptPart

from compact_agent.session.last_run import SIGNALLED
from compact_agent.session.store import SessionStore
from tests.fakes.openai_server import FakeOpenAIServer

from .test_commands_terminal import answer, session, show


async def test_history_says_the_turn_a_signal_ended_got_no_answer(tmp_path):
    with FakeOpenAIServer(answer) as server:
        first = session(tmp_path, server)
        sid, root = first.session_id, first.store.root
        first.close()
        store = SessionStore(root, sid)
        store.append([ModelRequest(parts=[UserPromptPart("fix the bug")])])
        store.append_meta(**{SIGNALLED: "SIGTERM"})
        s = session(tmp_path, server, session_id=sid)
        try:
            out = await show(s, "/history")
        finally:
            s.close()
    rows = [" ".join(line.split()) for line in out[out.index("messages ("):].splitlines()[1:] if line.strip()]
    assert rows[0] == "0 you fix the bug" and len(rows) == 2, out  # the mark's row has no number: not a message
    assert rows[1].startswith("no answer the turn was stopped by a termination signal (SIGTERM)"), out
