"""A tiny MCP server for tests on the `mcp` package's server (FastMCP's successor in mcp 2.x), for the tests of our
client against the SDK's; the others start mcp_notes_stdlib.py, the same server in plain Python (its tool, answer,
instructions and NOTES_SERVER_INSTRUCTIONS / NOTES_TOOL_DESCRIPTION are that module's).

    python tests/fakes/mcp_notes_server.py              # speaks MCP on stdin/stdout
    python tests/fakes/mcp_notes_server.py --http PORT  # streamable HTTP at http://127.0.0.1:PORT/mcp
"""

from __future__ import annotations

import anyio
from mcp.server.mcpserver import MCPServer

if __package__:
    from .mcp_notes_stdlib import DESCRIPTION, INSTRUCTIONS, note
else:  # run as a program, beside it
    from mcp_notes_stdlib import DESCRIPTION, INSTRUCTIONS, note

app = MCPServer("notes", instructions=INSTRUCTIONS)


@app.tool(description=DESCRIPTION)  # None: the docstring
def lookup_note(key: str) -> str:
    """Look up a note by its key."""
    return note(key)


if __name__ == "__main__":
    import functools
    import sys

    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        anyio.run(functools.partial(app.run_streamable_http_async, port=int(sys.argv[2])))
    else:
        anyio.run(app.run_stdio_async)
