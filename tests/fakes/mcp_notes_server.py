"""A tiny MCP server over stdio for tests (the `mcp` package's server, FastMCP's successor in mcp 2.x).

    python tests/fakes/mcp_notes_server.py              # speaks MCP on stdin/stdout
    python tests/fakes/mcp_notes_server.py --http PORT  # streamable HTTP at http://127.0.0.1:PORT/mcp
"""

from __future__ import annotations

import os

import anyio
from mcp.server.mcpserver import MCPServer

#: What the server tells the agent; a test may give its own in NOTES_SERVER_INSTRUCTIONS.
INSTRUCTIONS = os.environ.get("NOTES_SERVER_INSTRUCTIONS",
                              "NOTES-SERVER-RULE: look notes up with lookup_note; keys are lowercase.")

app = MCPServer("notes", instructions=INSTRUCTIONS)


@app.tool(description=os.environ.get("NOTES_TOOL_DESCRIPTION"))  # None: the docstring
def lookup_note(key: str) -> str:
    """Look up a note by its key."""
    return f"NOTE[{key}]: " + "the note body is long. " * 40


if __name__ == "__main__":
    import functools
    import sys

    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        anyio.run(functools.partial(app.run_streamable_http_async, port=int(sys.argv[2])))
    else:
        anyio.run(app.run_stdio_async)
