"""The notes MCP server of mcp_notes_server.py in plain Python, over stdio, for the tests that are not about the SDK.

    python tests/fakes/mcp_notes_stdlib.py    # speaks MCP on stdin/stdout, one JSON-RPC message a line

It starts in ~10 ms of CPU where the `mcp` package's server takes ~0.7 s (importing the package), and
answers what our client sends it (`server/discover`, `tools/list`, `tools/call`; another method is not
found) as the SDK's server does, message for message: tests/e2e/test_mcp.py replays what the client sent
it to both and compares (a call with no key is an error result too, worded shorter). Its tool
`lookup_note`, its instructions (NOTES_SERVER_INSTRUCTIONS) and the tool's description
(NOTES_TOOL_DESCRIPTION) are the ones mcp_notes_server.py serves, from here.
NOTES_CLIENT_LOG: a file each line received is appended to, for that replay.
"""

from __future__ import annotations

import json
import os
import sys

#: What the server tells the agent; a test may give its own in NOTES_SERVER_INSTRUCTIONS.
INSTRUCTIONS = os.environ.get("NOTES_SERVER_INSTRUCTIONS",
                              "NOTES-SERVER-RULE: look notes up with lookup_note; keys are lowercase.")
#: The tool's description; a test may give its own in NOTES_TOOL_DESCRIPTION (None: the SDK takes the docstring).
DESCRIPTION = os.environ.get("NOTES_TOOL_DESCRIPTION")
DOC = "Look up a note by its key."


def note(key: str) -> str:
    return f"NOTE[{key}]: " + "the note body is long. " * 40


# As the SDK's server (mcp 2.x, protocol 2026-07-28) words its results.
META = {"_meta": {"io.modelcontextprotocol/serverInfo": {"name": "notes", "version": ""}}}
CACHED = {"cacheScope": "private", "resultType": "complete"}
TOOL = {"description": DESCRIPTION or DOC,
        "inputSchema": {"type": "object", "properties": {"key": {"title": "Key", "type": "string"}},
                        "required": ["key"], "title": "lookup_noteArguments"},
        "name": "lookup_note",
        "outputSchema": {"properties": {"result": {"title": "Result", "type": "string"}}, "required": ["result"],
                         "title": "lookup_noteOutput", "type": "object"}}


def answer(method: str, params: dict) -> dict:
    """The JSON-RPC answer's `result` or `error` member to a request."""
    if method == "server/discover":
        capabilities = {"prompts": {"listChanged": True}, "resources": {"listChanged": True, "subscribe": True},
                        "tools": {"listChanged": True}}
        return {"result": {**CACHED, "capabilities": capabilities, "instructions": INSTRUCTIONS,
                           "supportedVersions": ["2026-07-28"], "ttlMs": 0, **META}}
    if method == "tools/list":
        return {"result": {**CACHED, "tools": [TOOL], "ttlMs": 0, **META}}
    if method == "tools/call":
        name, args = params.get("name"), params.get("arguments") or {}
        if name != "lookup_note":
            return {"result": {"content": [{"text": f"Unknown tool: {name}", "type": "text"}], "isError": True,
                               "resultType": "complete", **META}}
        if not isinstance(args.get("key"), str):
            return {"result": {"content": [{"text": "Error executing tool lookup_note: 1 validation error for "
                                                    "lookup_noteArguments\nkey", "type": "text"}],
                               "isError": True, "resultType": "complete", **META}}
        text = note(args["key"])
        return {"result": {"content": [{"text": text, "type": "text"}], "isError": False, "resultType": "complete",
                           "structuredContent": {"result": text}, **META}}
    return {"error": {"code": -32601, "message": "Method not found", "data": method}}


def serve() -> None:
    log = open(os.environ["NOTES_CLIENT_LOG"], "a") if os.environ.get("NOTES_CLIENT_LOG") else None  # noqa: SIM115
    for line in sys.stdin:
        if log:
            log.write(line)
            log.flush()
        if not line.strip():
            continue
        msg = json.loads(line)
        if "id" in msg and "method" in msg:  # a request (a notification is answered by nothing)
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"],
                                         **answer(msg["method"], msg.get("params") or {})}) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    serve()
