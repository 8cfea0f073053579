"""A stdio MCP server's program ends when the session closes. The MCP client keeps a stdio server's
process alive after its client closes unless told not to, so a closed session (the agent's exit, the
end of a `-p` run) left the program running on its own, for good where it ignores its closed input."""

from __future__ import annotations

import sys
from pathlib import Path

from compact_agent.agent.integrations.mcp_servers import McpServerConfig, McpServers

SERVER = str(Path(__file__).resolve().parents[1] / "fakes" / "mcp_notes_stdlib.py")


def running(pid: int) -> bool:
    """Whether `pid` is a process that has not ended (a zombie has ended, not yet reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def test_the_servers_program_has_ended_once_the_servers_are_closed(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    cfg = McpServerConfig("notes", command="sh", args=("-c", f'echo $$ > "{pidfile}"; exec "{sys.executable}" "{SERVER}"'))
    servers = McpServers([cfg], tmp_path)
    await servers.connect()
    assert servers.failed == {} and servers.live["notes"].tools == ["notes_lookup_note"]
    pid = int(pidfile.read_text())
    assert running(pid)
    await servers.aclose()
    assert not running(pid)
    assert servers.live == {}
