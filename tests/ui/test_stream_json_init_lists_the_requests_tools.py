"""`--output-format stream-json`'s `init` lists the tools the first request carries, the MCP servers' too.

It listed the built-in tools only: the servers connect with the first turn, after `init` is written,
so a script reading it did not see the tools the model would be offered. The servers connect for it
now, in a new session and in a resumed one; what they report meanwhile (a server that failed)
follows it, and `init` stays the first line."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from compact_agent.agent.integrations.mcp_servers import McpServers
from compact_agent.agent.run.options import SessionOptions
from compact_agent.config import Settings
from compact_agent.ui.print_mode import run_print
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.ui.test_print_command_sees_the_turns_tools import notes_server

SERVERS = {"notes": {"url": "http://127.0.0.1:9/mcp"}, "broken": {"command": "/nonexistent/mcp-server"}}


def objects(opts: SessionOptions, prompt: str) -> list[dict[str, Any]]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert asyncio.run(run_print(opts, prompt, "stream-json")) == 0, out.getvalue()
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_init_lists_the_tools_the_first_request_carries_new_and_resumed(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(McpServers, "_start", notes_server)
    (tmp_path / "project").mkdir()
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        def opts(**more: Any) -> SessionOptions:
            return SessionOptions(cwd=tmp_path / "project", model="fake-model", base_url=server.base_url, api_key="k",
                                  context_window=32_000, home=tmp_path / "home",
                                  settings=Settings(memory_enabled=False, mcp_servers=SERVERS), **more)

        new = objects(opts(), "hello")
        resumed = objects(opts(continue_last=True), "and again")
    for run, request in ((new, server.requests[0]), (resumed, server.requests[1])):
        init = run[0]
        assert init["type"] == "init" and init["resumed"] == (run is resumed)
        assert "notes_lookup_note" in init["tools"] and "read_file" in init["tools"]
        assert init["tools"] == request.tool_names  # what the request carried, no more, no less
        failed = [o for o in run if o["type"] == "event" and o.get("layer") == "mcp" and o.get("action") == "failed"]
        assert len(failed) == 1  # the broken server's line, after init
        assert run[-1]["type"] == "result"
