"""`/mcp` says, under a server's row, which of its tools were left out (a built-in tool's name) or
offered under another name (one a provider refuses). While /mcp ran those lines were held back as
part of its list, and the list did not have them: `-p /mcp` showed `read  connected  0 tools` with no
reason, and `t`'s renamed tools with no word of the names the server gave them."""

from __future__ import annotations

import asyncio
import io
import json
import sys
from pathlib import Path

import pytest
from rich.console import Console

from compact_agent.agent.integrations.mcp_names import NAME_RULE, valid_name
from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from compact_agent.ui.commands import dispatch
from compact_agent.ui.print_mode import run_print
from tests.fakes.openai_server import FakeOpenAIServer, Reply

SERVER = str(Path(__file__).with_name("mcp_script_server.py"))
LONG = valid_name("t_" + "x" * 70)


def options(tmp_path: Path, base_url: str) -> SessionOptions:
    (tmp_path / "project").mkdir(exist_ok=True)
    servers = {"read": {"command": sys.executable, "args": [SERVER, "clash"]},
               "t": {"command": sys.executable, "args": [SERVER, "badnames"]}}
    return SessionOptions(cwd=tmp_path / "project", model="fake-model", base_url=base_url, api_key="k",
                          context_window=32_000, home=tmp_path / "home",
                          settings=Settings(memory_enabled=False, mcp_servers=servers))


EXPECTED = [
    "read  connected  0 tools",
    "      tool file left out: its name read_file is a built-in tool's",
    f"t     connected  3 tools  t_fetch_url, {LONG}, t_ok_tool",
    f"      tool fetch.url is offered as t_fetch_url ({NAME_RULE})",
    f"      tool {'x' * 70} is offered as {LONG} ({NAME_RULE})"]


def test_print_mode_mcp_says_why_a_tool_is_not_offered_as_named(tmp_path: Path,
                                                                 capfd: pytest.CaptureFixture[str]) -> None:
    # (the servers' programs get a real stderr: capfd, not a StringIO)
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        code = asyncio.run(run_print(options(tmp_path, server.base_url), "/mcp", "json"))
    out, err = capfd.readouterr()
    assert code == 0, out + err
    said = str(json.loads(out.splitlines()[-1])["result"])
    assert said.splitlines() == EXPECTED, said
    assert "left out" not in err and "offered as" not in err  # said once: in the list
    assert server.requests == []


async def test_repl_mcp_after_a_clear_still_says_them(tmp_path: Path) -> None:
    """The servers connected with the first turn (their lines said then) and were kept by /clear:
    /mcp still says what became of their tools."""
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        s = AgentSession(options(tmp_path, server.base_url))
        try:
            await s.run_turn("hello")
            c = Console(record=True, width=300, file=io.StringIO())
            await dispatch(s, "/clear", Console(file=io.StringIO()))
            await dispatch(s, "/mcp", c)
        finally:
            await s.aclose()
    assert c.export_text().splitlines() == EXPECTED
