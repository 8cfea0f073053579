"""A message typed with `@path` attached is one message in the sessions listing (`compact-agent
sessions`, `-r`'s list, `/resume`), as the user typed it: the read_file call and results the
attachment adds before it (agent/run/turn.py, `mentions`) were counted as two more, so one
question about a file was '4 messages'."""

from __future__ import annotations

from pathlib import Path

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.session.listing import counted, scan
from tests.fakes.openai_server import FakeOpenAIServer, Reply


async def test_a_message_with_a_file_attached_is_one_message(tmp_path: Path) -> None:
    cwd = tmp_path / "project"
    cwd.mkdir()
    (cwd / "notes.txt").write_text("the secret is 42\n")
    (cwd / "more.txt").write_text("and 43\n")
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        s = AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                                        context_window=16_000, permission_mode="yes", home=tmp_path / "home"))
        await s.run_turn("what does @notes.txt say?")
        await s.run_turn("and @more.txt with @notes.txt?")
        await s.run_turn("thanks")
        in_memory = counted(s.messages)
        loaded = s.store.load()
        s.close()
    assert loaded.boundaries == []
    assert len(loaded.messages) > 6  # the attachments' reads are kept, for the model
    listed = scan(s.store.path)
    assert (listed.shown, listed.prompt) == (6, "what does @notes.txt say?")
    assert counted(loaded.messages) == in_memory == 6  # what /resume says of it
