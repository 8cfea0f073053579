"""A `/compact` that does not go ahead leaves the view layers as they were.

The summary request sends the view the layers shape; their decisions (a result spilled to a file,
a clearing frozen) are taken only when the compaction is rewritten into the session. Blocked by a
PreCompact hook or declined at the preview, nothing of that view is left behind: no decision, no
spill file, no layer event, and the next request shapes as if `/compact` had never been typed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart

from compact_agent.config import Settings
from compact_agent.context import CompactionBlocked
from compact_agent.context.plumbing.events import Event
from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .scripted import is_summary_request
from .test_extensions import hook_script, make_session

BIG = "a build log line that goes on\n" * 6_000  # far over one result's budget at a 32K window


def responder(req):
    if is_summary_request(req):
        return Reply.text("<summary>Read the build log.</summary>")
    return Reply.text("ok")


def with_unshaped_result(messages: list) -> None:
    """A round the layers have not seen yet (as one taken from an older run's file would be)."""
    messages += [ModelResponse(parts=[ToolCallPart("bash", {"command": "cat build.log"}, tool_call_id="log_1")]),
                 ModelRequest(parts=[ToolReturnPart("bash", BIG, tool_call_id="log_1")]),
                 ModelResponse(parts=[TextPart("The build passed.")])]


def spills(s) -> list[Path]:
    return sorted(s.store.side_dir("tool-results").glob("*.txt"))  # each result's file, not `.by-content`


@pytest.mark.parametrize("how", ["hook", "preview"])
async def test_a_compact_that_does_not_go_ahead_decides_nothing(tmp_path, how):
    hooks = {"PreCompact": hook_script(tmp_path, "no.sh", "echo not now >&2\nexit 2\n")} if how == "hook" else {}
    events: list[Event] = []
    with FakeOpenAIServer(responder) as server:
        s = make_session(tmp_path, server, Settings(memory_enabled=False, hooks=hooks), events)
        try:
            await s.run_turn("print the build log")
            with_unshaped_result(s.messages)
            state = s.cm.layer_state()
            seen = len(events)

            async def decline(result) -> bool:
                return False

            with pytest.raises(CompactionBlocked):
                await s.compact("", confirm=decline if how == "preview" else None)
            if how == "preview":
                assert any(is_summary_request(r) for r in server.requests)  # the summary was written and shown
            assert s.cm.layer_state() == state  # no decision frozen
            assert spills(s) == []  # no spill file written
            assert [e for e in events[seen:] if e.layer in {"budget", "snip", "microcompact", "collapse"}] == []

            await s.run_turn("and now?")  # the next request decides, as it would have
        finally:
            await s.aclose()
    assert any(e.layer == "budget" for e in events[seen:])
    assert len(spills(s)) == 1
