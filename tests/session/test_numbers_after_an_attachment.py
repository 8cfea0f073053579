"""The message numbers of `/history` (those `/compact --from N` and `--up-to N` take) are the same
in the process that ran a turn with an `@file` mention and in the session resumed with `-c`.

The attached file goes to the model as a read_file call and its results, a request of their own
before the prompt's; pydantic-ai joins the two into one request when the next turn hands the
history back. The live process numbered the turn's messages one way until its next turn and the
other way after it, while the session file kept the two requests and a resumed session numbered
every later message one higher: `/compact --from 6` summarised from a different message
depending on which process was asked. Both now number the history as the model is sent it, the
two requests as one."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from compact_agent.agent.run.runner import AgentSession
from compact_agent.ui.commands import dispatch
from tests.e2e.test_rewind_after_compaction import session
from tests.fakes.openai_server import FakeOpenAIServer, Reply


async def numbered(s: AgentSession) -> list[str]:
    """The message rows `/history` shows."""
    c = Console(width=120, record=True, file=io.StringIO(), force_terminal=False)
    await dispatch(s, "/history", c)
    out = c.export_text(styles=False)
    return out[out.index("messages ("):].splitlines()[1:]


def number_of(rows: list[str], words: str) -> int:
    [row] = [r for r in rows if words in r]
    return int(row.split()[0])


async def resumed_rows(tmp_path: Path, server: FakeOpenAIServer, sid: str) -> list[str]:
    s = session(tmp_path, server, session_id=sid)
    try:
        return await numbered(s)
    finally:
        s.close()


async def test_history_numbers_agree_live_and_resumed_after_a_mention(tmp_path):
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        s = session(tmp_path, server)
        try:
            (s.cwd / "notes.txt").write_text("hello\n")
            await s.run_turn("hello there")
            await s.run_turn("look at @notes.txt")
            after_mention = await numbered(s)
            await s.run_turn("and now something else")
            after_next = await numbered(s)
            sid = s.session_id
            assert s.store.archives() == []  # nothing was taken for an edit of the history
        finally:
            s.close()
        resumed = await resumed_rows(tmp_path, server, sid)
        assert after_next == resumed, (after_next, resumed)
        # The live numbers did not move under the messages when the next turn began.
        assert after_next[:len(after_mention)] == after_mention, (after_mention, after_next)
        at = number_of(resumed, "and now something else")
        assert number_of(after_next, "and now something else") == at

        # The resumed session goes on with the same numbers, and a third process agrees with it.
        s = session(tmp_path, server, session_id=sid)
        try:
            await s.run_turn("one more")
            live = await numbered(s)
        finally:
            s.close()
        assert live[:len(resumed)] == resumed
        assert live == await resumed_rows(tmp_path, server, sid)


async def test_a_mention_in_the_last_turn_is_numbered_alike_before_any_other_turn(tmp_path):
    """Resumed right after the turn with the mention (`-c -p /history`)."""
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        s = session(tmp_path, server)
        try:
            (s.cwd / "notes.txt").write_text("hello\n")
            await s.run_turn("look at @notes.txt")
            live = await numbered(s)
            sid = s.session_id
        finally:
            s.close()
        assert live == await resumed_rows(tmp_path, server, sid)
