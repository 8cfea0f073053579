"""`/mcp` says each server's state: connected with its tools, or the one line of why it failed.

Before any turn it said "2 servers configured; they connect with the first message", which `-p /mcp`
never sends: print mode said nothing of whether a server worked. /mcp now connects the servers as
the first turn would (once a session), in print mode and in the REPL, and the turn after it still
declares them to the model."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.toolsets import FunctionToolset
from rich.console import Console

from compact_agent.agent.integrations.mcp_servers import McpServerConfig, McpServers, ServerState
from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from compact_agent.ui.commands import dispatch
from compact_agent.ui.print_mode import run_print
from tests.fakes.openai_server import FakeOpenAIServer, Reply, message_text
from tests.ui.test_print_command_sees_the_turns_tools import notes_server

SERVERS = {"notes": {"url": "http://127.0.0.1:9/mcp"}, "broken": {"command": "/nonexistent/mcp-server"}}
CONNECTED = "notes   connected  1 tool  notes_lookup_note"
FAILED = "broken  failed     no program /nonexistent/mcp-server (check its command in [mcp_servers.broken])"


def options(tmp_path: Path, base_url: str) -> SessionOptions:
    (tmp_path / "project").mkdir(exist_ok=True)
    return SessionOptions(cwd=tmp_path / "project", model="fake-model", base_url=base_url, api_key="k",
                          context_window=32_000, home=tmp_path / "home",
                          settings=Settings(memory_enabled=False, mcp_servers=SERVERS))


def test_print_mode_mcp_says_which_servers_connected_and_why_one_failed(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(McpServers, "_start", notes_server)
    out, err = io.StringIO(), io.StringIO()
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = asyncio.run(run_print(options(tmp_path, server.base_url), "/mcp", "json"))
    assert code == 0, out.getvalue() + err.getvalue()
    said = str(json.loads(out.getvalue().splitlines()[-1])["result"])
    assert said.splitlines() == [CONNECTED, FAILED]
    assert "first message" not in said
    assert server.requests == []  # a command: no model request


async def test_repl_mcp_before_the_first_message_then_the_turn_declares_the_servers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(McpServers, "_start", notes_server)
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        s = AgentSession(options(tmp_path, server.base_url))
        try:
            c = Console(record=True, width=200, file=io.StringIO())
            await dispatch(s, "/mcp", c)
            await s.run_turn("hello")
        finally:
            await s.aclose()
    assert c.export_text().splitlines() == [CONNECTED, FAILED]
    first = server.requests[0]
    assert "notes_lookup_note" in first.tool_names
    assert "Notes are looked up by key." in "\n".join(message_text(m) for m in first.messages)


async def test_mcp_rows_stand_in_columns_in_the_configured_order(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Written with two spaces between the fields, the state, the count and the tool names stood at
    a different place on every row, and the failed servers came after every connected one."""
    async def start(self: McpServers, cfg: McpServerConfig) -> ServerState:
        if cfg.name != "searchengine":
            return await notes_server(self, cfg)
        toolset: FunctionToolset[Any] = FunctionToolset()  # a server of two tools, as /mcp lists them now

        @toolset.tool_plain
        def find(q: str) -> str:
            return q

        @toolset.tool_plain
        def fetch(url: str) -> str:
            return url

        return ServerState(cfg, toolset, ["searchengine_find", "searchengine_fetch"])

    monkeypatch.setattr(McpServers, "_start", start)
    servers = {"searchengine": {"url": "http://127.0.0.1:9/mcp"}, "broken": {"command": "/nonexistent/mcp-server"},
               "notes": {"url": "http://127.0.0.1:9/mcp"}}
    opts = options(tmp_path, "http://127.0.0.1:9/v1")
    s = AgentSession(replace(opts, settings=Settings(memory_enabled=False, mcp_servers=servers)))
    try:
        c = Console(record=True, width=200, file=io.StringIO())
        await dispatch(s, "/mcp", c)
    finally:
        await s.aclose()
    assert c.export_text().splitlines() == [
        "searchengine  connected  2 tools  searchengine_find, searchengine_fetch",
        "broken        failed     no program /nonexistent/mcp-server (check its command in [mcp_servers.broken])",
        "notes         connected  1 tool   notes_lookup_note"]


@pytest.mark.parametrize("output_format", ["text", "stream-json"])
def test_print_mode_mcp_says_a_failed_server_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  output_format: str) -> None:
    """`-p /mcp` said why a server failed on stderr, and again in its list."""
    monkeypatch.setattr(McpServers, "_start", notes_server)
    out, err = io.StringIO(), io.StringIO()
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = asyncio.run(run_print(options(tmp_path, server.base_url), "/mcp", output_format))
    assert code == 0, out.getvalue() + err.getvalue()
    said = out.getvalue() if output_format == "text" else str(json.loads(out.getvalue().splitlines()[-1])["result"])
    assert " ".join(FAILED.split()) in " ".join(said.split())  # (80 columns for a pipe: it wraps)
    assert "did not start" not in err.getvalue(), err.getvalue()
