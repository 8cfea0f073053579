"""/status has a row of the MCP servers, as /mcp lists them: each one's state (connected, stopped
or failed) and a connected one's tool count. It said nothing of them: a server that failed to
start, or stopped during a call, was found only by /mcp or by the model's failing calls."""

from __future__ import annotations

import io
import sys
from pathlib import Path

from rich.console import Console

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from compact_agent.ui.commands import dispatch
from tests.agent.test_mcp_calls_end import SERVER as SCRIPT_SERVER
from tests.agent.test_mcp_calls_end import calling
from tests.e2e.test_mcp import SERVER as NOTES_SERVER
from tests.fakes.openai_server import FakeOpenAIServer


async def status(s: AgentSession, width: int = 200) -> list[str]:
    c = Console(record=True, width=width, file=io.StringIO())
    await dispatch(s, "/status", c)
    return c.export_text().splitlines()


async def test_status_lists_each_server_with_its_state_and_tools(tmp_path: Path) -> None:
    cwd = tmp_path / "project"
    cwd.mkdir()
    settings = Settings(memory_enabled=False, mcp_servers={
        "t": {"command": sys.executable, "args": [SCRIPT_SERVER]},
        "notes": {"command": sys.executable, "args": [NOTES_SERVER]},
        "broken": {"command": "/nonexistent/mcp-server"}})
    with FakeOpenAIServer(calling("t_crash")) as server:
        s = AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                                        context_window=32_000, permission_mode="yes", home=tmp_path / "home",
                                        settings=settings))
        try:
            before = await status(s)  # the servers connected for it, as /context and the first turn connect them
            await s.run_turn("crash it")  # t's program ends during the call
            after = await status(s)
        finally:
            await s.aclose()
    assert [line for line in before if line.startswith("mcp ")] == [
        "mcp         t connected, 10 tools; notes connected, 1 tool; broken failed (/mcp says why)"], before
    assert [line for line in after if line.startswith("mcp ")] == [
        "mcp         t stopped; notes connected, 1 tool; broken failed (/mcp says why)"], after


async def test_no_row_without_servers(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    s = AgentSession(SessionOptions(cwd=tmp_path / "project", model="fake-model", base_url="http://127.0.0.1:9/v1",
                                    api_key="k", context_window=32_000, home=tmp_path / "home",
                                    settings=Settings(memory_enabled=False)))
    try:
        assert not any(line.startswith("mcp") for line in await status(s))
    finally:
        await s.aclose()
