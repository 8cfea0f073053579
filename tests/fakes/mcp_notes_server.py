"""A tiny MCP server over stdio for tests (the `mcp` package's server, FastMCP's successor in mcp 2.x).

    python tests/fakes/mcp_notes_server.py      # speaks MCP on stdin/stdout
"""

from __future__ import annotations

import anyio
from mcp.server.mcpserver import MCPServer

INSTRUCTIONS = "NOTES-SERVER-RULE: look notes up with lookup_note; keys are lowercase."

app = MCPServer("notes", instructions=INSTRUCTIONS)


@app.tool()
def lookup_note(key: str) -> str:
    """Look up a note by its key."""
    return f"NOTE[{key}]: " + "the note body is long. " * 40


if __name__ == "__main__":
    anyio.run(app.run_stdio_async)
