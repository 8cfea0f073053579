"""The MCP tools `tool_search` found stay sent in the session resumed (`-c`), as in the run that
found them: they were forgotten with the run, so the first request of `-c` carried tool_search alone
and the model's call of a tool its history showed it had found was answered as an unknown tool."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.agent.tools import tool_search
from compact_agent.agent.tools.tool_search import DeferredTools
from compact_agent.config import Settings
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, message_text, tool_results

NOTES = str(Path(__file__).resolve().parents[1] / "fakes" / "mcp_notes_stdlib.py")


def model(req: ChatRequest) -> Reply:
    if tool_results(req) and "NOTE[" in message_text(req.messages[-1]):
        return Reply.text("found it")
    if "search" in req.last_user_text() and not tool_results(req):
        return Reply.tools([("tool_search", {"query": "lookup note"})])
    return Reply.tools([("notes_lookup_note", {"key": "alpha"})])  # after the search, or found before


async def test_tools_found_are_sent_in_the_session_resumed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tool_search, "DEFER_SHARE", 0.0)  # as if the schemas were a tenth of the window
    (tmp_path / "project").mkdir()
    opts = SessionOptions(cwd=tmp_path / "project", model="fake-model", api_key="k", context_window=32_000,
                          permission_mode="yes", home=tmp_path / "home",
                          settings=Settings(memory_enabled=False,
                                            mcp_servers={"notes": {"command": sys.executable, "args": [NOTES]}}))
    with FakeOpenAIServer(model) as server:
        s = AgentSession(replace(opts, base_url=server.base_url))
        try:
            assert (await s.run_turn("search for the notes tool")).output == "found it"
        finally:
            await s.aclose()
        found = len(server.requests)
        s = AgentSession(replace(opts, base_url=server.base_url, continue_last=True))
        try:
            assert s.messages, "the session was not resumed"
            assert (await s.run_turn("look alpha up again")).output == "found it"
        finally:
            await s.aclose()
    resumed = server.requests[found]
    assert "notes_lookup_note" in resumed.tool_names and "tool_search" in resumed.tool_names
    assert "NOTE[alpha]" in message_text(tool_results(server.requests[found + 1])[0])


def test_an_unreadable_record_is_said_and_the_tools_searched_for_again(tmp_path: Path) -> None:
    (tmp_path / "tool_search.json").write_text("{not json")
    deferred = DeferredTools(lambda: 32_000, tmp_path / "tool_search.json")
    assert deferred.loaded == set()
    assert deferred.warning == ("tool_search.json is unreadable; tools found by tool_search earlier must be "
                                "searched for again")
    assert DeferredTools(lambda: 32_000, tmp_path / "none.json").warning == ""


def test_a_fifo_in_its_place_is_said_not_waited_for(tmp_path: Path) -> None:
    import os

    os.mkfifo(tmp_path / "tool_search.json")
    deferred = DeferredTools(lambda: 32_000, tmp_path / "tool_search.json")
    assert deferred.loaded == set() and "is unreadable" in deferred.warning
