"""An MCP tool whose name clashes with a built-in tool's is left out in one line, and one whose name a
provider refuses is offered under a name it takes (mcp_names.py): the clash stopped every turn with
pydantic-ai's conflict error, a `fetch.url` or a 70-character name made every request an HTTP 400."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from compact_agent.agent.integrations.mcp_names import valid_name
from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from compact_agent.context.plumbing.events import Event
from compact_agent.ui.more_commands import mcp_rows
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, message_text, tool_results

SERVER = str(Path(__file__).with_name("mcp_script_server.py"))
OPENAI_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


async def test_a_clashing_name_is_left_out_and_a_refused_one_renamed(tmp_path: Path) -> None:
    long_name = valid_name("t_" + "x" * 70)
    calls = [("t_fetch_url", {}), (long_name, {}), ("read_file", {"path": "a.txt"})]

    def model(req: ChatRequest) -> Reply:
        bad = [n for n in req.tool_names if not OPENAI_NAME.match(n)]
        if bad:  # as OpenAI refuses a tool it cannot name
            return Reply.error(400, {"error": {"message": f"Invalid 'tools[0].function.name': {bad[0]!r}",
                                               "type": "invalid_request_error"}})
        done = sum(1 for m in req.messages if m.get("role") == "tool")
        return Reply.tools([calls[done]]) if done < len(calls) else Reply.text("done")

    cwd = tmp_path / "project"
    cwd.mkdir()
    (cwd / "a.txt").write_text("the real file\n")
    settings = Settings(memory_enabled=False, mcp_servers={
        "read": {"command": sys.executable, "args": [SERVER, "clash"]},
        "t": {"command": sys.executable, "args": [SERVER, "badnames"]}})
    events: list[Event] = []
    with FakeOpenAIServer(model) as server:
        s = AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                                        context_window=32_000, permission_mode="yes", home=tmp_path / "home",
                                        settings=settings), on_event=events.append)
        try:
            assert (await s.run_turn("go")).output == "done"
            assert (await s.run_turn("again")).output == "done"
            assert s.ext.mcp is not None
            rows = [row for row, _ in mcp_rows(s.ext.mcp)]
        finally:
            await s.aclose()
    names = server.requests[0].tool_names
    assert names.count("read_file") == 1 and "t_fetch_url" in names and long_name in names and "t_ok_tool" in names
    assert len(long_name) == 64
    said = [str(e.detail.get("message")) for e in events if e.layer == "mcp" and e.action == "failed"]
    assert "MCP server read: tool file left out: its name read_file is a built-in tool's" in said
    assert "MCP server t: tool fetch.url is offered as t_fetch_url (a tool name is letters, digits, _ and -, at most 64)" in said
    assert any(line.startswith(f"MCP server t: tool {'x' * 70} is offered as {long_name}") for line in said)
    results = [message_text(tool_results(r)[0]) for r in server.requests if tool_results(r)]
    assert results[0] == "fetch.url ran with {}" and results[1] == f"{'x' * 70} ran with {{}}"
    assert "the real file" in results[2]  # the built-in read_file ran, not the server's
    assert any(row.startswith("read") and "0 tools" in row for row in rows), rows


def test_valid_names() -> None:
    assert valid_name("docs_search") == "docs_search"
    assert valid_name("t_fetch.url") == "t_fetch_url"
    assert valid_name("t_a b/c") == "t_a_b_c"
    a, b = valid_name("t_" + "x" * 70), valid_name("t_" + "x" * 69 + "y")
    assert a != b and all(OPENAI_NAME.match(n) for n in (a, b))
