"""A call of an MCP tool ends within the server's `tool_timeout`, saying which server and how long;
a server whose program ended is said to have stopped, in /mcp too (mcp_calls.py).

A hanging call waited five minutes (the MCP client's read timeout, which no setting changed), then
failed naming neither server nor time; a crashed server's calls failed with 'Connection closed' as
a retry, and /mcp kept listing it as connected."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from compact_agent.agent.integrations.mcp_servers import McpConfigError, parse_servers
from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from compact_agent.context.plumbing.events import Event
from compact_agent.ui.more_commands import mcp_rows
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, message_text, tool_results

SERVER = str(Path(__file__).with_name("mcp_script_server.py"))


def calling(*tools: str):  # type: ignore[no-untyped-def]
    todo = list(tools)

    def model(req: ChatRequest) -> Reply:
        return Reply.text("done") if tool_results(req) else Reply.tools([(todo.pop(0), {})])
    return model


async def test_a_hanging_call_ends_at_the_servers_tool_timeout(tmp_path: Path) -> None:
    cwd = tmp_path / "project"
    cwd.mkdir()
    settings = Settings(memory_enabled=False, mcp_servers={
        "t": {"command": sys.executable, "args": [SERVER], "tool_timeout": 0.5}})
    with FakeOpenAIServer(calling("t_hang", "t_echo")) as server:
        s = AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                                        context_window=32_000, permission_mode="yes", home=tmp_path / "home",
                                        settings=settings))
        try:
            t0 = time.monotonic()
            assert (await s.run_turn("hang")).output == "done"
            assert time.monotonic() - t0 < 30
        finally:
            await s.aclose()
    result = message_text(tool_results(server.requests[1])[0])
    assert "MCP server t did not answer this call of t_hang within 0.5s (its tool_timeout in [mcp_servers.t])" in result


def test_tool_timeout_is_checked() -> None:
    [cfg] = parse_servers({"t": {"command": "x", "tool_timeout": 900}})
    assert cfg.tool_timeout_s == 900 and cfg.timeout_s == 30
    with pytest.raises(McpConfigError) as e:
        parse_servers({"t": {"command": "x", "tool_timeout": 0}})
    assert str(e.value) == "mcp_servers.t.tool_timeout: expected seconds, more than 0 and at most 86,400, not 0"


async def test_a_server_whose_program_ended_is_said_to_have_stopped(tmp_path: Path) -> None:
    cwd = tmp_path / "project"
    cwd.mkdir()
    settings = Settings(memory_enabled=False, mcp_servers={"t": {"command": sys.executable, "args": [SERVER]}})
    events: list[Event] = []
    with FakeOpenAIServer(calling("t_echo", "t_crash", "t_echo")) as server:
        s = AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                                        context_window=32_000, permission_mode="yes", home=tmp_path / "home",
                                        settings=settings), on_event=events.append)
        try:
            for n in range(3):
                assert (await s.run_turn(f"turn {n}")).output == "done"
            assert s.ext.mcp is not None
            rows = mcp_rows(s.ext.mcp)
        finally:
            await s.aclose()
    results = [message_text(tool_results(r)[0]) for r in server.requests if tool_results(r)]
    stopped = ("MCP server t has stopped (its program ended, or closed its output, during a call of t_crash); "
               "its tools cannot be called until the agent is started again")
    assert results[0] == "echo ran with {}"
    assert stopped in results[1] and stopped in results[2], results
    said = [e.detail.get("message") for e in events if e.layer == "mcp" and e.action == "failed"]
    assert said == [stopped]
    assert rows == [("t  failed     stopped: its program ended, or closed its output, during a call of t_crash", True)]


async def test_a_server_that_never_answers_is_said_at_its_timeout(tmp_path: Path) -> None:
    """The line came five seconds after the server's `timeout` (the start given up was undone first)."""
    import asyncio

    import pydantic_ai.mcp  # noqa: F401 - imported before the clock starts, as a session's first server does

    from compact_agent.agent.integrations.mcp_servers import McpServers
    from tests.processes import ended

    pid_file = tmp_path / "server.pid"
    said: list[tuple[float, str]] = []
    loop = asyncio.get_running_loop()
    servers = McpServers(parse_servers({"t": {"command": sys.executable, "args": [SERVER, "mute"], "timeout": 3,
                                              "env": {"PID_FILE": str(pid_file)}}}), tmp_path,
                         lambda action, line, detail: said.append((loop.time(), line)))
    t0 = loop.time()
    try:
        await servers.connect()
    finally:
        await servers.aclose()
    [(when, line)] = said
    assert line == "MCP server t did not start: it did not answer within 3s (its timeout in [mcp_servers.t])"
    assert 3 <= when - t0 < 4.5, when - t0
    assert ended(int(pid_file.read_text()))  # the program given up on is not left running


async def test_a_line_that_is_not_json_rpc_is_said_naming_its_server(tmp_path: Path) -> None:
    import logging

    cwd = tmp_path / "project"
    cwd.mkdir()
    settings = Settings(memory_enabled=False, mcp_servers={"noisy": {"command": sys.executable, "args": [SERVER]}})
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logger = logging.getLogger("mcp.client.stdio")
    logger.addHandler(handler)
    try:
        with FakeOpenAIServer(calling("noisy_garbage")) as server:
            s = AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                                            context_window=32_000, permission_mode="yes", home=tmp_path / "home",
                                            settings=settings))
            try:
                assert (await s.run_turn("go")).output == "done"
            finally:
                await s.aclose()
    finally:
        logger.removeHandler(handler)
    assert message_text(tool_results(server.requests[1])[0]) == "garbage ran with {}"
    assert [r.getMessage() for r in records] == [
        "MCP server noisy printed a line on its output that is not an MCP message; it was left out (a server's "
        "own logs belong on its stderr)"]
