"""An MCP server started over stdio by the session: its tools work, its results are compactable,
its instructions come back after compaction; a server that cannot start is one line, not a crash.
The first of these and the HTTP one run the notes server on the `mcp` package's server; the others, and
the rest of the suite, start it in plain Python (tests/fakes/mcp_notes_stdlib.py), which answers our
client as the SDK's does (checked here)."""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import sys
import time
from pathlib import Path

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from compact_agent.context.plumbing.events import Event
from tests.fakes.mcp_notes_stdlib import INSTRUCTIONS
from tests.fakes.openai_server import FakeOpenAIServer, Reply, message_text, tool_results

from .scripted import is_summary_request

#: The notes server on the `mcp` package's server, for the tests of our client against the SDK's (here) ...
SDK_SERVER = str(Path(__file__).resolve().parents[1] / "fakes" / "mcp_notes_server.py")
#: ... and the same in plain Python, answering as it does (test_the_plain_notes_server_answers_as_the_sdks_does)
#: starting in ~10 ms of CPU, not ~0.7 s, for the tests of what the session makes of a server.
SERVER = str(Path(__file__).resolve().parents[1] / "fakes" / "mcp_notes_stdlib.py")


def responder(req):
    if is_summary_request(req):
        return Reply.text("<summary>We looked up the note 'alpha' with the notes server.</summary>")
    if tool_results(req):
        return Reply.text("found it")
    if "look up" in req.last_user_text():
        return Reply.tools([("notes_lookup_note", {"key": "alpha"})])
    if "everything" in req.last_user_text():  # a long answer, for the compaction to have something to free
        return Reply.text("The notes server keeps short notes. " * 400)
    return Reply.text("ok")


async def slash(s: AgentSession, line: str) -> str:
    import io

    from rich.console import Console

    from compact_agent.ui.commands import dispatch

    c = Console(record=True, width=160, file=io.StringIO())
    await dispatch(s, line, c)
    return c.export_text()


def text_of(req) -> str:
    return "\n".join(message_text(m) for m in req.messages)


async def test_stdio_server_tools_results_and_instructions_after_compaction(tmp_path):
    cwd = tmp_path / "project"
    cwd.mkdir()
    settings = Settings(memory_enabled=False, mcp_servers={
        "notes": {"command": sys.executable, "args": [SDK_SERVER]},
        "broken": {"command": "/nonexistent/mcp-server", "timeout": 5},
    })
    events: list[Event] = []
    with FakeOpenAIServer(responder) as server:
        opts = SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                              context_window=32_000, permission_mode="yes", home=tmp_path / "home", settings=settings)
        s = AgentSession(opts, on_event=events.append)
        try:
            before = await slash(s, "/mcp")
            out = await s.run_turn("look up the alpha note")
            after = await slash(s, "/mcp")
            context = await slash(s, "/context")
            micro = next(layer for layer in s.cm.layers if layer.name == "microcompact")
            await s.run_turn("tell me everything about the notes")
            await s.run_turn("good")
            await s.compact()
            await s.run_turn("thanks")
        finally:
            await s.aclose()
    assert out.output == "found it"
    # /mcp connects them before the first message, as the turn would: the same state before and after it
    assert "notes   connected  1 tool  notes_lookup_note" in before and "broken  failed" in before
    assert before == after
    assert "⛁ MCP tool definitions" in context and "⛁ tool definitions" in context  # their share, apart
    first = server.requests[0]
    assert "notes_lookup_note" in first.tool_names
    assert INSTRUCTIONS in text_of(first) and "[compact-agent: MCP servers]" in text_of(first)
    tool_msg = next(m for m in server.requests[1].messages if m.get("role") == "tool")
    assert "NOTE[alpha]: the note body is long." in message_text(tool_msg)
    assert "notes_lookup_note" in micro.compactable  # MCP results are cleared like read_file's
    # Declared once, not on every turn ...
    assert sum(text_of(r).count(INSTRUCTIONS) for r in server.requests[:2]) == 2  # the same message, twice sent
    # ... and re-declared after the compaction removed the first declaration.
    last = server.requests[-1]
    assert not is_summary_request(last)
    assert text_of(last).count(INSTRUCTIONS) == 1 and "notes_lookup_note" in last.tool_names
    failed = [e for e in events if e.layer == "mcp" and e.action == "failed"]
    assert len(failed) == 1 and failed[0].detail["server"] == "broken"
    assert "\n" not in failed[0].detail["message"]
    # In words, naming what to check: no "[Errno 2]", no exception name.
    assert failed[0].detail["message"] == ("MCP server broken did not start: no program /nonexistent/mcp-server "
                                           "(check its command in [mcp_servers.broken])")


def replayed(program: str, sent: list[str]) -> list[dict]:
    """What the server `program` answers to the lines `sent`, each request's answer read (within 20 s) before the
    next is sent."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NOTES_")}
    proc = subprocess.Popen([sys.executable, program], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env, bufsize=0)  # unbuffered: select sees what is unread
    assert proc.stdin and proc.stdout
    got: list[dict] = []
    try:
        for line in sent:
            proc.stdin.write(line.encode())
            msg = json.loads(line)
            while "id" in msg and "method" in msg and (not got or got[-1].get("id") != msg["id"]):
                assert select.select([proc.stdout], [], [], 20)[0], f"{program} did not answer {line}"
                got.append(json.loads(proc.stdout.readline()))
    finally:
        proc.stdin.close()
        proc.wait(10)
    return got


async def test_the_plain_notes_server_answers_as_the_sdks_does(tmp_path):
    """mcp_notes_stdlib.py stands in for mcp_notes_server.py where the SDK is not the point: what our client sent
    it in a session's turn (its start, the listing, a call), sent again to each, gets the same answers from both."""
    log = tmp_path / "sent.jsonl"
    cwd = tmp_path / "project"
    cwd.mkdir()
    settings = Settings(memory_enabled=False, mcp_servers={"notes": {"command": sys.executable, "args": [SERVER],
                                                                     "env": {"NOTES_CLIENT_LOG": str(log)}}})
    with FakeOpenAIServer(responder) as server:
        s = AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                                        permission_mode="yes", home=tmp_path / "home", settings=settings))
        try:
            assert (await s.run_turn("look up the alpha note")).output == "found it"
        finally:
            await s.aclose()
    assert "NOTE[alpha]" in message_text(tool_results(server.requests[1])[0])
    sent = log.read_text().splitlines(keepends=True)
    assert "tools/call" in [json.loads(line).get("method") for line in sent]
    assert replayed(SERVER, sent) == replayed(SDK_SERVER, sent)


async def test_a_server_whose_program_is_not_on_path_is_one_line_in_words(tmp_path):
    from compact_agent.agent.integrations.mcp_servers import McpServerConfig, McpServers

    said: list[str] = []
    servers = McpServers([McpServerConfig("docs", command="no-such-mcp-program-x1"),
                          McpServerConfig("local", command="./serve.sh")], tmp_path,
                         report=lambda action, line, detail: said.append(f"{action}: {line}"))
    (tmp_path / "serve.sh").write_text("#!/bin/sh\n")  # there, but not executable
    await servers.connect()
    assert said == ["failed: MCP server docs did not start: no program named no-such-mcp-program-x1 on PATH "
                    "(check its command in [mcp_servers.docs])",
                    "failed: MCP server local did not start: no program ./serve.sh (check its command in "
                    "[mcp_servers.local])"]


async def test_http_server(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen([sys.executable, SDK_SERVER, "--http", str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with socket.socket() as c:
                if c.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        cwd = tmp_path / "project"
        cwd.mkdir()
        settings = Settings(memory_enabled=False, mcp_servers={"notes": {"url": f"http://127.0.0.1:{port}/mcp"}})
        with FakeOpenAIServer(responder) as server:
            opts = SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                                  context_window=32_000, permission_mode="yes", home=tmp_path / "home",
                                  settings=settings)
            s = AgentSession(opts)
            try:
                out = await s.run_turn("look up the alpha note")
            finally:
                await s.aclose()
    finally:
        proc.terminate()
        proc.wait(5)
    assert out.output == "found it"
    assert "NOTE[alpha]" in message_text(next(m for m in server.requests[1].messages if m.get("role") == "tool"))
    assert INSTRUCTIONS in text_of(server.requests[0])


async def test_mcp_results_are_redacted_like_our_tools(tmp_path):
    """A server that echoes the API key (here: the note it looks up is named after it) hands the
    model `[REDACTED]`, as read_file and bash do."""
    key = "sk-mcp-0123456789abcdef0123456789abcdef"

    def echo_key(req):
        if tool_results(req):
            return Reply.text("found it")
        return Reply.tools([("notes_lookup_note", {"key": key})])

    cwd = tmp_path / "project"
    cwd.mkdir()
    settings = Settings(memory_enabled=False, mcp_servers={"notes": {"command": sys.executable, "args": [SERVER]}})
    with FakeOpenAIServer(echo_key) as server:
        opts = SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key=key,
                              context_window=32_000, permission_mode="yes", home=tmp_path / "home", settings=settings)
        s = AgentSession(opts)
        try:
            assert (await s.run_turn("look it up")).output == "found it"
        finally:
            await s.aclose()
    result = message_text(tool_results(server.requests[1])[0])
    assert "NOTE[[REDACTED]]" in result and key not in result, result


def searching(req):
    if tool_results(req) and "found it" not in req.all_text():
        last = message_text(req.messages[-1])
        if "available from your next step" in last:
            return Reply.tools([("notes_lookup_note", {"key": "alpha"})])
        return Reply.text("found it")
    if "look up" in req.last_user_text():
        return Reply.tools([("tool_search", {"query": "lookup note"})])
    return Reply.text("ok")


async def test_large_mcp_schemas_wait_behind_a_tool_search(tmp_path, monkeypatch):
    from compact_agent.agent.tools import tool_search

    monkeypatch.setattr(tool_search, "DEFER_SHARE", 0.0)  # as if the schemas were a tenth of the window
    cwd = tmp_path / "project"
    cwd.mkdir()
    settings = Settings(memory_enabled=False, mcp_servers={"notes": {"command": sys.executable, "args": [SERVER]}})
    with FakeOpenAIServer(searching) as server:
        s = AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                                        permission_mode="yes", home=tmp_path / "home", settings=settings))
        try:
            out = await s.run_turn("look up the alpha note")
        finally:
            await s.aclose()
    assert out.output == "found it"
    first, second = server.requests[0], server.requests[1]
    assert "tool_search" in first.tool_names and not any(n.startswith("notes_") for n in first.tool_names)
    assert "notes_lookup_note" in second.tool_names  # sent once the model searched for it
    assert not server.rejected
