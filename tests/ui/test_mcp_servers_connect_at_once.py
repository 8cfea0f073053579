"""The MCP servers connect at once, not one after another: a broken server's line does not wait for
a slow one configured before it, and the servers keep their configured order in every list, whatever
order they answered in.

They connected one after the other, and the REPL held what their start said until every one had
answered: with a slow server first, the broken one's failure came only once the slow one was up."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from compact_agent.agent.integrations.mcp_servers import McpServerConfig, McpServers, ServerState
from compact_agent.config import Settings
from tests.fakes.openai_server import Reply

from .repl_driver import drive
from .test_print_command_sees_the_turns_tools import notes_server

BROKEN = "no program /nonexistent/mcp-server (check its command in [mcp_servers.broken])"


async def test_each_server_is_reported_as_it_answers_and_kept_in_the_configured_order(tmp_path: Path,
                                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    lines: list[str] = []

    async def start(self: McpServers, cfg: McpServerConfig) -> ServerState:
        if cfg.name == "slow":  # still starting when the others have answered
            while len(lines) < 2:
                await asyncio.sleep(0)
        return await notes_server(self, cfg)

    monkeypatch.setattr(McpServers, "_start", start)
    mcp = McpServers([McpServerConfig("slow", url="http://127.0.0.1:9/mcp"),
                      McpServerConfig("broken", command="/nonexistent/mcp-server"),
                      McpServerConfig("notes", url="http://127.0.0.1:9/mcp")], tmp_path,
                     report=lambda action, line, detail: lines.append(line))
    await asyncio.wait_for(mcp.connect(), 5)  # one after another, the slow one waited for good
    assert lines == [f"MCP server broken did not start: {BROKEN}", "MCP server notes: 1 tool",
                     "MCP server slow: 1 tool"]
    assert list(mcp.live) == ["slow", "notes"]  # as configured: the tools and declarations the prompt caches
    assert [getattr(getattr(t, "wrapped", None), "prefix", None) for t in mcp.toolset.toolsets] == ["slow", "notes"]
    assert mcp.delta_text() is not None and mcp.delta_text() is None
    assert mcp.restore_text().index("- slow:") < mcp.restore_text().index("- notes:")  # type: ignore[union-attr]


async def test_the_repl_says_a_broken_server_failed_while_a_slow_one_still_starts(tmp_path: Path,
                                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    console = Console(record=True, width=200, file=io.StringIO(), force_terminal=False)

    async def start(self: McpServers, cfg: McpServerConfig) -> Any:
        if cfg.name == "slow":  # up once the broken one's line is on the screen, or after a while
            for _ in range(2_000):
                if "broken did not start" in console.export_text(clear=False):
                    break
                await asyncio.sleep(0)
            console.print("SLOW SERVER UP")
        return await notes_server(self, cfg)

    monkeypatch.setattr(McpServers, "_start", start)
    servers = {"slow": {"url": "http://127.0.0.1:9/mcp"}, "broken": {"command": "/nonexistent/mcp-server"}}
    # /cost waits for the session; the empty lines give the servers' connection its time
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["/cost\r", *["\r"] * 10], console=console,
                      context_window=32_000,
                      settings=Settings(memory_enabled=False, mcp_servers=servers))
    assert run.out.count(BROKEN) == 1, run.out
    assert run.out.index(BROKEN) < run.out.index("SLOW SERVER UP"), run.out
