"""A server (or a proxy in front of it) that writes a tool call's arguments with JSON's `\\uXXXX`
escapes, as Python's json.dumps does by default, hands the call over as text six characters long for
each non-ASCII one; the next request sends those arguments as pydantic-ai sends every call, compact
JSON of their dict, each character once. Counted as received, the history's estimate grew by the
escapes while the provider's report grew by what was sent: under half, so a silent cut was judged,
a 32K window learned down to the conversation's size (1,238 tokens) and kept for every later session
of that model."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic_ai.messages import ToolCallPart

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.context.plumbing import tokens
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

COMMAND = "echo " + "長い" * 30


def escaping(req: ChatRequest) -> Reply:
    """A call in ASCII, then one whose arguments json.dumps wrote (`\\u9577\\u3044...`), then an answer."""
    calls = sum(len(m.get("tool_calls") or ()) for m in req.messages)
    if calls < 2:
        return Reply.tools([("bash", json.dumps({"command": "echo start" if calls == 0 else COMMAND}))])
    return Reply.text("ok")


def test_a_call_s_arguments_count_as_sent_not_as_received() -> None:
    escaped = ToolCallPart("bash", json.dumps({"command": COMMAND}), tool_call_id="c0")
    plain = ToolCallPart("bash", {"command": COMMAND}, tool_call_id="c0")
    assert "\\u" in escaped.args  # type: ignore[operator]
    assert tokens.part_tokens(escaped) == tokens.part_tokens(plain)
    assert tokens.part_tokens(escaped) < len(escaped.args) / 4 / 3  # type: ignore[arg-type]


async def test_escaped_arguments_are_no_server_cutting_prompts(tmp_path: Path) -> None:
    """The agent on a server of unknown window (32,768 assumed), as `compact-agent --base-url URL -p`."""
    with FakeOpenAIServer(escaping) as server:
        s = AgentSession(SessionOptions(cwd=tmp_path, model="fake-model", base_url=server.base_url, api_key="k",
                                        home=tmp_path / "home"))
        try:
            await s.run_turn("run the two commands")
            assert s.cm.calibration.samples >= 2  # the reports were read
            assert s.cm.calibration.cut_to() is None and s.cm.window_learned is None, s.cm.window_learned
            assert s.cm.limits.window == 32_768
        finally:
            s.close()
        assert server.rejected == []
        assert len(server.requests) == 3
