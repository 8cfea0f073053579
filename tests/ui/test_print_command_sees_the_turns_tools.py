"""`-p /compact` and `-p /context` on a resumed session see what a turn's request carries: the
system prompt and every tool, the MCP servers' included.

MCP servers connected with the first turn only, so a slash command in print mode (no turn) measured
the context without the servers' tools, and /compact's summary request, meant to share the main
request's prefix, went out with no tools at all: not the prefix the turns before it had cached, and
sizes that were not the next request's."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.toolsets import FunctionToolset

from compact_agent.agent.integrations.mcp_servers import McpServerConfig, McpServers, ServerState
from compact_agent.agent.run.options import SessionOptions
from compact_agent.config import Settings
from compact_agent.ui.print_mode import run_print
from tests.e2e.scripted import is_summary_request
from tests.fakes.openai_server import FakeOpenAIServer, Reply


async def notes_server(self: McpServers, cfg: McpServerConfig) -> ServerState:
    """A connected MCP server, in-process: one tool and its instructions."""
    toolset: FunctionToolset[Any] = FunctionToolset()

    @toolset.tool_plain
    def lookup_note(key: str) -> str:
        """Look a note up by its key."""
        return f"the note {key}"

    return ServerState(cfg, toolset, [f"{cfg.name}_lookup_note"], "Notes are looked up by key.")


def answer(req) -> Reply:
    if is_summary_request(req):
        return Reply.text("<summary>We talked about the notes.</summary>")
    if "thanks" in req.last_user_text():
        return Reply.text("You are welcome.")
    said = req.last_user_text()
    return Reply.text(" ".join(f"{said.split()[-1]} note {n} is kept." for n in range(300)))


def run(opts: SessionOptions, prompt: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert asyncio.run(run_print(opts, prompt, "json")) == 0, out.getvalue()
    return str(json.loads(out.getvalue().splitlines()[-1])["result"])


def test_a_print_mode_command_sends_and_measures_the_tools_of_a_turn(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(McpServers, "_start", notes_server)
    (tmp_path / "project").mkdir()
    settings = Settings(memory_enabled=False, mcp_servers={"notes": {"url": "http://127.0.0.1:9/mcp"}})
    with FakeOpenAIServer(answer) as server:
        def opts(**more: Any) -> SessionOptions:
            return SessionOptions(cwd=tmp_path / "project", model="fake-model", base_url=server.base_url, api_key="k",
                                  context_window=32_000, home=tmp_path / "home", settings=settings, **more)

        for n, prompt in enumerate(("what do the notes say?", "and the other ones?", "thanks")):
            run(opts(continue_last=n > 0), prompt)
        context = run(opts(continue_last=True), "/context")
        run(opts(continue_last=True), "/compact")
    turn, summary = server.requests[-2], server.requests[-1]
    assert not is_summary_request(turn) and is_summary_request(summary)
    assert "notes_lookup_note" in turn.tool_names
    assert summary.tool_names == turn.tool_names  # the prefix the turns cached, tools and all
    assert summary.tools == turn.tools
    assert "MCP tool definitions" in context, context
