"""/status says when the working directory was moved or deleted during the session: every tool
refuses there and says so to the model, but /status showed the session as if nothing were amiss.
A row names it and what to do; a session whose directory is there has no such row."""

from __future__ import annotations

from pathlib import Path

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.ui.test_status_lists_mcp_servers import status


async def test_status_says_the_working_directory_is_gone(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        s = AgentSession(SessionOptions(cwd=project, model="fake-model", base_url=server.base_url, api_key="k",
                                        context_window=32_000, home=tmp_path / "home",
                                        settings=Settings(memory_enabled=False)))
        try:
            await s.run_turn("hello")
            there = await status(s, width=300)
            project.rename(tmp_path / "moved")
            gone = await status(s, width=300)
        finally:
            await s.aclose()
    assert not any(line.startswith("directory") for line in there), there
    assert [line for line in gone if line.startswith("directory")] == [
        f"directory   {s.cwd} is gone (moved or deleted); no file can be read or written and no command run in it: "
        "put it back, or start compact-agent again where the project is now"], gone
    assert any(line.startswith("context ") for line in gone)  # the rest of /status as before
