"""An MCP server that does not start is one line saying what happened and what to check.

The MCP client's own words said neither: a server that did not answer in time was 'Client failed to
connect: Failed to initialize server session', an address where nothing listens 'Client failed to
connect: All connection attempts failed', a URL that is no MCP server 'Not Found', and a program that
ended without answering 'Connection closed'.
"""

from __future__ import annotations

import socket
import sys
from pathlib import Path

from compact_agent.agent.integrations.mcp_servers import McpServerConfig, McpServers
from tests.fakes.openai_server import FakeOpenAIServer, Reply


async def failures(*configs: McpServerConfig) -> list[str]:
    said: list[str] = []
    servers = McpServers(list(configs), Path.cwd(),
                         report=lambda action, line, detail: said.append(line))
    try:
        await servers.connect()
    finally:
        await servers.aclose()
    return said


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_an_address_where_nothing_listens_is_said_with_the_address():
    url = f"http://user:secret@127.0.0.1:{free_port()}/mcp"
    said = await failures(McpServerConfig("web", url=url, timeout_s=5))
    assert said == [f"MCP server web did not start: cannot reach {url.replace('secret', '***')} (connection refused: "
                    "nothing listens at that address and port; check its url in [mcp_servers.web])"]


async def test_a_url_that_is_no_mcp_server_is_said_as_the_404_it_answered():
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        url = server.base_url
        said = await failures(McpServerConfig("api", url=url, timeout_s=5))
    assert said == [f"MCP server api did not start: {url} answered 404 Not Found: no MCP server there "
                    "(check its url in [mcp_servers.api])"]


async def test_a_program_that_ends_without_answering_is_said_so():
    said = await failures(McpServerConfig("gone", command=sys.executable, args=("-c", "raise SystemExit(3)"),
                                          timeout_s=10))
    assert said == ["MCP server gone did not start: its program ended, or closed its output, without answering as "
                    "an MCP server (check its command in [mcp_servers.gone]; run it to see what it says)"]


async def test_a_program_that_does_not_answer_in_time_is_said_with_its_timeout():
    said = await failures(McpServerConfig("mute", command=sys.executable,
                                          args=("-c", "import time; time.sleep(30)"), timeout_s=0.5))
    assert said == ["MCP server mute did not start: it did not answer within 0.5s (its timeout in [mcp_servers.mute])"]
