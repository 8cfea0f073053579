"""`/notes` shows the session notes, survives a restart, and says so when there are none."""

from __future__ import annotations

from pathlib import Path

from pydantic_ai.messages import ModelRequest, UserPromptPart
from rich.console import Console

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from compact_agent.context.compaction.notes import SECTIONS
from compact_agent.ui.commands import dispatch


def session(tmp_path: Path, **kw) -> AgentSession:
    cwd = tmp_path / "project"
    cwd.mkdir(exist_ok=True)
    return AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url="http://127.0.0.1:9/v1", api_key="k",
                                       home=tmp_path / "home", **kw))


async def show(s: AgentSession) -> str:
    c = Console(record=True, width=200)
    await dispatch(s, "/notes", c)
    return c.export_text()


async def test_memory_command(tmp_path):
    s = session(tmp_path, settings=Settings(memory_enabled=True))
    assert "no notes yet" in await show(s)
    notes = "\n\n".join(f"# {t}\nabout [brackets] {i}" for i, t in enumerate(SECTIONS)) + "\n"
    assert s.memory is not None
    s.memory.path.parent.mkdir(parents=True, exist_ok=True)
    s.memory.path.write_text(notes)
    s.store.save_prompt("hello")  # typed, as the REPL saves it: a new session holding nothing typed goes at close
    s.store.append([ModelRequest(parts=[UserPromptPart("hello")])])
    sid = s.session_id
    s.close()
    again = session(tmp_path, session_id=sid, settings=Settings(memory_enabled=True))  # a restart (or --continue) loads the notes from beside the session
    out = await show(again)
    assert "# Task and intent" in out and "about [brackets] 6" in out
    again.close()
    off = session(tmp_path, settings=Settings(memory_enabled=False))
    assert "off" in await show(off)
    off.close()


async def test_notes_off_says_the_setting_not_a_variable_never_set(tmp_path):
    """Off by default: the line names the setting and how to turn it on, not an environment
    variable the user never set as if it were the reason."""
    s = session(tmp_path)
    out = " ".join((await show(s)).split())
    s.close()
    assert "session notes are off: memory_enabled is false" in out
    assert "memory_enabled = true in a config file, or COMPACT_AGENT_MEMORY_ENABLED=true, turns them on" in out
    assert "(COMPACT_AGENT_MEMORY_ENABLED=false)" not in out
