"""/mcp and /status show a server's tools as it lists them now: a server whose list changed
(`notifications/tools/list_changed`) since the last request was shown with its old list, by /mcp
and /status alike, until the next turn's request worked the new one out. Both work it out first,
as a turn's start does (SessionExtensions.mcp_tools_now), and the next turn still declares the
server again with its new tools."""

from __future__ import annotations

import io
import sys
from pathlib import Path

from rich.console import Console

from compact_agent.agent.run.runner import AgentSession
from compact_agent.ui.commands import dispatch
from tests.agent.test_mcp_declaration import SCRIPT, declarations, session
from tests.fakes.openai_server import FakeOpenAIServer, Reply


async def said(s: AgentSession, line: str) -> list[str]:
    c = Console(record=True, width=200, file=io.StringIO())
    await dispatch(s, line, c)
    return c.export_text().splitlines()


async def grown(s: AgentSession) -> None:
    """The server's list grows between turns, as a server's does on its own (a plugin loaded, say):
    its `grow` called directly adds two tools and sends list_changed before its result."""
    assert s.ext.mcp is not None
    await s.ext.mcp.live["t"].toolset.direct_call_tool("grow", {})


async def test_mcp_lists_a_servers_tools_as_they_are_now(tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        s = session(tmp_path, server.base_url, {"t": {"command": sys.executable, "args": [SCRIPT, "grows"]}})
        try:
            await s.run_turn("hello")
            before = await said(s, "/mcp")
            await grown(s)
            after = await said(s, "/mcp")
            await s.run_turn("again")
        finally:
            await s.aclose()
    assert before[0] == "t  connected  2 tools  t_echo, t_grow", before
    assert after[:2] == ["t  connected  4 tools  t_echo, t_grow, t_added, t_fetch_url",
                         "   tool fetch.url is offered as t_fetch_url (a tool name is letters, digits, _ and -, at "
                         "most 64)"], after
    # what /mcp worked out is still declared to the model at the next turn, under the names it showed
    assert declarations(server.requests[1])[-1].splitlines()[1] == "- t: tools t_echo, t_grow, t_added, t_fetch_url"
    assert {"t_added", "t_fetch_url"} <= set(server.requests[1].tool_names)


async def test_status_counts_a_servers_tools_as_they_are_now(tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        s = session(tmp_path, server.base_url, {"t": {"command": sys.executable, "args": [SCRIPT, "grows"]}})
        try:
            await s.run_turn("hello")
            await grown(s)
            rows = [line for line in await said(s, "/status") if line.startswith("mcp ")]
        finally:
            await s.aclose()
    assert rows == ["mcp         t connected, 4 tools"], rows
