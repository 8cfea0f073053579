"""The toolbar's context figure counts the MCP servers' tools before the first turn, as /context
does: the servers connect in the background while the prompt is up (it comes up at once), and the
toolbar is measured again once they are there. It counted the built-in tools only until a turn or a
command (/context) connected them, and then jumped: the two figures disagreed on the same context."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from compact_agent.agent.integrations.mcp_servers import McpServers
from compact_agent.config import Settings
from compact_agent.ui import repl, repl_building
from tests.fakes.openai_server import Reply

from .repl_driver import drive
from .test_print_command_sees_the_turns_tools import notes_server


def answer(req: Any) -> Reply:
    return Reply.text("ANSWER")


async def test_the_toolbar_before_the_first_turn_counts_the_servers_tools(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[str] = []

    async def start(self: McpServers, cfg: Any) -> Any:
        started.append(cfg.name)
        return await notes_server(self, cfg)

    monkeypatch.setattr(McpServers, "_start", start)
    shown: list[str] = []

    def recorded(s: Any, width: int | None = None) -> str:
        shown.append(line := status_line(s, width))
        return line

    status_line = repl.status_line
    monkeypatch.setattr(repl, "status_line", recorded)
    monkeypatch.setattr(repl_building, "status_line", recorded)
    settings = Settings(memory_enabled=False, mcp_servers={"notes": {"url": "http://127.0.0.1:9/mcp"}})
    # /cost waits for the session; the empty lines give the servers' connection its time, no command
    # connecting them; /context counts the tools (and would connect them), then one more prompt
    run = await drive(tmp_path, answer, ["/cost\r", *["\r"] * 10, "/context\r", "\r"], settings=settings,
                      context_window=32_000)
    assert "MCP tool definitions" in run.out, run.out
    before, after = shown[-3], shown[-2]  # the toolbar over /context, and the one after it
    assert before == after, shown
    assert started == ["notes"]  # connected once, in the background


async def test_a_message_sent_while_the_servers_connect_waits_for_their_tools(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[str] = []

    async def slow_start(self: McpServers, cfg: Any) -> Any:
        started.append(cfg.name)
        for _ in range(200):  # a server that takes its time: the message typed at once is handled meanwhile
            await asyncio.sleep(0)
        return await notes_server(self, cfg)

    monkeypatch.setattr(McpServers, "_start", slow_start)
    settings = Settings(memory_enabled=False, mcp_servers={"notes": {"url": "http://127.0.0.1:9/mcp"}})
    run = await drive(tmp_path, answer, ["what do the notes say?\r"], settings=settings, context_window=32_000)
    assert "notes_lookup_note" in run.server.requests[0].tool_names  # sent once they were there
    assert started == ["notes"]  # the turn waited for the connection under way, made no second one
