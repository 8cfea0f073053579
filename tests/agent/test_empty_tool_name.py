"""One reply with a tool call the model named so that no provider takes the name does not end the session.

The call was answered as an unknown tool, saved, and sent back as it came; OpenAI (and the fake, as
strict) refuses a call with an empty name in the history, so every later request failed and every
`-c` with it. Such a call is kept and sent as `invalid_tool_name` now, its answer with it, and a
session saved with one by an earlier version loads with it renamed."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from compact_agent.agent.run.options import SessionOptions
from compact_agent.config import Settings
from compact_agent.session.repair import UNSENDABLE
from compact_agent.ui.print_mode import run_print
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply


def run(tmp_path: Path, server: FakeOpenAIServer, prompt: str, resume: bool) -> tuple[int, dict[str, Any]]:
    opts = SessionOptions(cwd=tmp_path / "project", model="fake-model", base_url=server.base_url, api_key="k",
                          context_window=32_000, home=tmp_path / "home", continue_last=resume,
                          settings=Settings(memory_enabled=False))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = asyncio.run(run_print(opts, prompt, "json"))
    return code, json.loads(out.getvalue()) | {"stderr": err.getvalue()}


def sent_calls(req: ChatRequest) -> list[tuple[str, str]]:
    """Each tool call the request carries back, as (name, what its tool message said)."""
    answers = {m["tool_call_id"]: str(m["content"]) for m in req.messages if m["role"] == "tool"}
    return [(c["function"]["name"], answers.get(c["id"], "")) for m in req.messages if m["role"] == "assistant"
            for c in m.get("tool_calls") or []]


@pytest.mark.parametrize("name", ["", "bash\n", "read file", "x" * 65])
def test_a_call_with_an_unsendable_name_is_answered_and_the_session_goes_on(tmp_path: Path, name: str) -> None:
    (tmp_path / "project").mkdir()
    replies = iter([Reply.tools([(name, {})]), Reply.text("first done"), Reply.text("resumed fine")])
    with FakeOpenAIServer(lambda req: next(replies)) as server:
        first = run(tmp_path, server, "go", resume=False)
        again = run(tmp_path, server, "again", resume=True)
    assert server.rejected == []
    assert (first[0], first[1]["result"]) == (0, "first done"), first
    assert (again[0], again[1]["result"]) == (0, "resumed fine"), again
    for req in server.requests[1:]:
        ((sent, answer),) = sent_calls(req)
        assert sent == UNSENDABLE and f"Unknown tool name: '{UNSENDABLE}'" in answer  # the model was told


def test_a_session_saved_with_an_empty_tool_name_resumes(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    replies = iter([Reply.tools([("no_such_tool", {})]), Reply.text("first done"), Reply.text("resumed fine")])
    with FakeOpenAIServer(lambda req: next(replies)) as server:
        assert run(tmp_path, server, "go", resume=False)[0] == 0
        # as an earlier version saved it: the call and its answer under the name the model gave, ""
        (saved,) = (tmp_path / "home").glob("projects/*/*.jsonl")
        text = saved.read_text()
        assert text.count('"tool_name": "no_such_tool"') == 2, text
        saved.write_text(text.replace('"tool_name": "no_such_tool"', '"tool_name": ""'))
        code, result = run(tmp_path, server, "again", resume=True)
    assert (code, result["result"]) == (0, "resumed fine"), result
    assert "warning" not in result["stderr"]  # nothing repaired, nothing lost: one call, answered
    ((sent, answer),) = sent_calls(server.requests[-1])
    assert sent == UNSENDABLE and "Unknown tool name: 'no_such_tool'" in answer
    assert server.rejected == []
