"""A command or a message that waits for an MCP server still starting says which server it waits for.

The REPL connects the servers in the background; a `/mcp` typed meanwhile showed nothing until the
slow one had answered, and a message showed `thinking…` all that time, as if the model were slow."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from compact_agent.agent.integrations.mcp_servers import McpServerConfig, McpServers
from compact_agent.config import Settings
from compact_agent.ui.turn_view import TurnView
from tests.fakes.openai_server import Reply

from .repl_driver import drive
from .test_print_command_sees_the_turns_tools import notes_server


def slow_until(said: Any) -> Any:
    """A fake `_start` whose server `slowsrv` answers once `said()` is true (or after a while)."""
    async def start(self: McpServers, cfg: McpServerConfig) -> Any:
        if cfg.name == "slowsrv":
            for _ in range(2_000):
                if said():
                    break
                await asyncio.sleep(0)
        return await notes_server(self, cfg)
    return start


async def test_mcp_typed_while_a_server_starts_says_it_waits_for_it(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    console = Console(record=True, width=200, file=io.StringIO(), force_terminal=False)
    monkeypatch.setattr(McpServers, "_start", slow_until(lambda: "waiting for" in console.export_text(clear=False)))
    servers = {"notes": {"url": "http://127.0.0.1:9/mcp"}, "slowsrv": {"url": "http://127.0.0.1:9/mcp"}}
    # /permissions waits for the session, the empty lines for the quick server: /mcp waits for the slow one only
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["/permissions\r", "\r", "\r", "/mcp\r"], console=console,
                      context_window=32_000, settings=Settings(memory_enabled=False, mcp_servers=servers))
    assert "waiting for MCP server slowsrv…" in run.out, run.out
    assert run.out.index("waiting for MCP server slowsrv…") < run.out.index("slowsrv  connected"), run.out


async def test_a_message_sent_while_a_server_starts_says_it_waits_for_it(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    shown: list[str] = []
    spin = TurnView._spin

    def recorded(self: TurnView, doing: str) -> None:
        shown.append(doing)
        spin(self, doing)

    monkeypatch.setattr(TurnView, "_spin", recorded)
    monkeypatch.setattr(McpServers, "_start", slow_until(lambda: any("MCP" in d for d in shown)))
    servers = {"slowsrv": {"url": "http://127.0.0.1:9/mcp"}}
    run = await drive(tmp_path, lambda req: Reply.text("ANSWER"), ["/permissions\r", "what do the notes say?\r"],
                      context_window=32_000, settings=Settings(memory_enabled=False, mcp_servers=servers))
    assert "ANSWER" in run.out
    waited = shown.index("waiting for MCP server slowsrv")  # not `thinking…` while the server started
    assert "thinking" in shown[waited:]  # …and `thinking` again once it had answered
    assert "slowsrv_lookup_note" in run.server.requests[0].tool_names
