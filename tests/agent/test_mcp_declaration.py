"""What the model is told of the MCP servers (mcp_declaration.py) stays true of what it is offered.

* Where their tools are: in its tool list, or behind tool_search when their schemas would take too
  much of the window. The declaration said "their tools are in your tool list" either way.
* A server whose tool list changed while the session runs (`notifications/tools/list_changed`) is
  declared again, as it is now, at the next turn, its new tools named as its first ones were; the
  declaration kept the list it had at its start, and a new tool's name went out as the server wrote
  it (`t_fetch.url`, which OpenAI refuses). Nothing changed, nothing is declared again: the messages
  sent before stay as they were, for the prompt cache.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from compact_agent.context.plumbing.events import Event
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, message_text, tool_results

SCRIPT = str(Path(__file__).with_name("mcp_script_server.py"))
NOTES = str(Path(__file__).resolve().parents[1] / "fakes" / "mcp_notes_stdlib.py")
IN_LIST = "MCP servers connected in this session (their tools are in your tool list):"
SEARCHED = ("MCP servers connected in this session (their tools are not in your tool list until tool_search finds "
            "them: call tool_search with a few words of what you need, and the tools it finds can be called from "
            "your next step):")


def session(tmp_path: Path, base_url: str, servers: dict[str, object], events: list[Event] | None = None) -> AgentSession:
    cwd = tmp_path / "project"
    cwd.mkdir(exist_ok=True)
    return AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=base_url, api_key="k",
                                       context_window=32_000, permission_mode="yes", home=tmp_path / "home",
                                       settings=Settings(memory_enabled=False, mcp_servers=servers)),
                        on_event=events.append if events is not None else None)


def declarations(req: ChatRequest) -> list[str]:
    return [text for m in req.messages if "[compact-agent: MCP servers]" in (text := message_text(m))]


@pytest.mark.parametrize("searched", [False, True])
async def test_the_declaration_says_where_the_tools_are(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        searched: bool) -> None:
    from compact_agent.agent.tools import tool_search

    if searched:
        monkeypatch.setattr(tool_search, "DEFER_SHARE", 0.0)  # as if the schemas were a tenth of the window
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        s = session(tmp_path, server.base_url, {"notes": {"command": sys.executable, "args": [NOTES]}})
        try:
            await s.run_turn("hello")
        finally:
            await s.aclose()
    [said] = declarations(server.requests[0])
    tools = server.requests[0].tool_names
    if searched:
        assert SEARCHED in said and "tool_search" in tools and "notes_lookup_note" not in tools, said
    else:
        assert IN_LIST in said and "notes_lookup_note" in tools and "tool_search" not in tools, said
    assert "- notes: tools notes_lookup_note" in said


def grows(req: ChatRequest) -> Reply:
    if tool_results(req):
        return Reply.text("done")
    return Reply.tools([("t_grow", {})]) if "grow" in req.last_user_text() else Reply.text("ok")


async def test_a_server_whose_list_changed_is_declared_again_at_the_next_turn(tmp_path: Path) -> None:
    events: list[Event] = []
    with FakeOpenAIServer(grows) as server:
        s = session(tmp_path, server.base_url, {"t": {"command": sys.executable, "args": [SCRIPT, "grows"]}}, events)
        try:
            await s.run_turn("grow the list")  # requests 0 and 1
            await s.run_turn("hello")  # 2
            await s.run_turn("again")  # 3
        finally:
            await s.aclose()
    first, after_call, next_turn, last = server.requests
    assert [d.splitlines()[1] for d in declarations(first)] == ["- t: tools t_echo, t_grow"]
    # pydantic-ai offers the new tools from the step after the change on, under the names the rule gives
    assert {"t_added", "t_fetch_url"} <= set(after_call.tool_names) and "t_fetch.url" not in after_call.tool_names
    # the next turn says so, after what was said before (kept as it was)
    said = declarations(next_turn)
    assert said[0] == declarations(first)[0] and len(said) == 2, said
    assert said[1].splitlines()[:2] == [
        "[compact-agent: MCP servers] MCP servers declared again as they are now, in place of what was said of them "
        "earlier (their tools are in your tool list):", "- t: tools t_echo, t_grow, t_added, t_fetch_url"]
    assert {"t_added", "t_fetch_url"} <= set(next_turn.tool_names)
    assert declarations(last) == said  # nothing changed since: nothing declared again
    assert last.messages[:len(next_turn.messages)] == next_turn.messages
    renamed = [e.detail["message"] for e in events if e.layer == "mcp" and e.action == "failed"]
    assert renamed == ["MCP server t: tool fetch.url is offered as t_fetch_url (a tool name is letters, digits, _ "
                       "and -, at most 64)"]


async def test_tools_moved_out_from_behind_the_search_are_declared_again(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """As a /model switch to a larger window moves them: the share they may take is what changes here."""
    from compact_agent.agent.tools import tool_search

    monkeypatch.setattr(tool_search, "DEFER_SHARE", 0.0)
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        s = session(tmp_path, server.base_url, {"notes": {"command": sys.executable, "args": [NOTES]}})
        try:
            await s.run_turn("hello")
            monkeypatch.setattr(tool_search, "DEFER_SHARE", 0.1)
            await s.run_turn("again")
            await s.run_turn("and again")
        finally:
            await s.aclose()
    first, moved, same = server.requests
    assert "notes_lookup_note" in moved.tool_names and "tool_search" not in moved.tool_names
    said = declarations(moved)
    assert len(said) == 2 and SEARCHED in said[0], said
    assert said[1].startswith("[compact-agent: MCP servers] MCP servers declared again as they are now, in place of "
                              "what was said of them earlier (their tools are in your tool list):\n- notes:"), said
    assert declarations(same) == said


async def test_a_resumed_session_declares_again_only_a_server_that_changed(tmp_path: Path) -> None:
    """Each `-c` declared every server again, the same words once more; a server started again with
    other instructions (or tools) was declared as though it had just connected."""
    from dataclasses import replace

    notes = {"command": sys.executable, "args": [NOTES]}
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        s = session(tmp_path, server.base_url, {"notes": notes})
        try:
            await s.run_turn("one")
        finally:
            await s.aclose()
        for servers in ({"notes": notes}, {"notes": {**notes, "env": {"NOTES_SERVER_INSTRUCTIONS": "NEW-RULE"}}}):
            s = session(tmp_path, server.base_url, servers)
            opts = s.opts
            await s.aclose()
            s = AgentSession(replace(opts, continue_last=True))
            try:
                assert s.messages
                await s.run_turn("again")
            finally:
                await s.aclose()
    first, same, changed = server.requests
    assert declarations(same) == declarations(first) and len(declarations(first)) == 1
    assert same.messages[:len(first.messages)] == first.messages
    said = declarations(changed)
    assert said[:1] == declarations(first) and len(said) == 2, said
    assert said[1].startswith("[compact-agent: MCP servers] MCP servers declared again as they are now, in place of "
                              "what was said of them earlier (their tools are in your tool list):\n- notes:"), said
    assert "NEW-RULE" in said[1]


async def test_a_stopped_servers_names_stay_taken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The names are worked out again at each request: a server's tool left out for an earlier
    server's name stays out once that server has stopped (its tools are still offered, their calls
    saying it stopped), or the two would clash and stop every turn."""
    from pydantic_ai import RunContext
    from pydantic_ai.models.test import TestModel
    from pydantic_ai.toolsets import FunctionToolset
    from pydantic_ai.usage import RunUsage

    from compact_agent.agent.integrations.mcp_servers import McpServerConfig, McpServers, ServerState

    async def start(self: McpServers, cfg: McpServerConfig) -> ServerState:
        tool = "u_x" if cfg.name == "t" else "x"  # t_u_x, both
        toolset: FunctionToolset[None] = FunctionToolset()
        toolset.add_function(lambda: f"{cfg.name} ran", name=tool)
        return ServerState(cfg, toolset, [f"{cfg.name}_{tool}"])

    monkeypatch.setattr(McpServers, "_start", start)
    said: list[str] = []
    servers = McpServers([McpServerConfig("t", url="http://127.0.0.1:9/mcp"),
                          McpServerConfig("t_u", url="http://127.0.0.1:9/mcp")], tmp_path,
                         report=lambda action, line, detail: said.append(line))
    await servers.connect()
    ctx = RunContext(deps=None, model=TestModel(), usage=RunUsage())
    before = await servers.toolset.get_tools(ctx)
    servers.ended("t", "t_u_x")
    after = await servers.toolset.get_tools(ctx)
    assert list(before) == list(after) == ["t_u_x"]
    assert [line for line in said if "left out" in line] == [
        "MCP server t_u: tool x left out: its name t_u_x is another MCP server's tool's"]  # said once
