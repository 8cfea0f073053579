"""What the MCP servers' start says: once, and in words (`/mcp` typed while they connect).

`/mcp` typed while the servers still connected in the background said a failed server twice.

It waited for the connection under way and listed `broken  failed  …`, and then the background
connection's own line for it, `MCP server broken did not start: …`, came under the list: the same
failure twice, the second after the answer to the command that had just said it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from compact_agent.agent.integrations.mcp_servers import McpServerConfig, McpServers
from compact_agent.config import Settings
from tests.fakes.openai_server import Reply

from .repl_driver import drive
from .test_print_command_sees_the_turns_tools import notes_server

SERVERS = {"notes": {"url": "http://127.0.0.1:9/mcp"}, "broken": {"command": "/nonexistent/mcp-server"}}
WHY = "no program /nonexistent/mcp-server (check its command in [mcp_servers.broken])"


async def test_mcp_typed_at_once_says_the_failed_server_once(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    async def slow_start(self: McpServers, cfg: Any) -> Any:
        for _ in range(200):  # a server that takes its time: /mcp, typed at once, waits for it
            await asyncio.sleep(0)
        return await notes_server(self, cfg)

    monkeypatch.setattr(McpServers, "_start", slow_start)
    settings = Settings(memory_enabled=False, mcp_servers=SERVERS)
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["/mcp\r", *["\r"] * 5], settings=settings,
                      context_window=32_000)
    assert "notes   connected  1 tool  notes_lookup_note" in run.out, run.out
    assert run.out.count(WHY) == 1, run.out


async def test_a_server_of_one_tool_is_reported_with_one_tool(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """stream-json's `connected` event said `MCP server notes: 1 tools`."""
    monkeypatch.setattr(McpServers, "_start", notes_server)
    lines: list[str] = []
    mcp = McpServers([McpServerConfig("notes", url="http://127.0.0.1:9/mcp")], tmp_path,
                     report=lambda action, line, detail: lines.append(line))
    await mcp.connect()
    assert lines == ["MCP server notes: 1 tool"]
