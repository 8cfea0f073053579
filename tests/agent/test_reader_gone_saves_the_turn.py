"""A turn whose output's reader left (pipes.ReaderGone: `-p ... | head -1`) while the model's tool
calls ran saves what a turn the user stopped saves (agent/run/turn.py, ended_calls.py): the answer
with its calls and the result of each, so the file a call wrote is in the session. The reader gone
may come inside a group, from a task group in the turn; it went back to what was saved before the
answer and lost it. (End to end, over the real CLI: tests/e2e/test_reader_gone_keeps_the_tools.py.)"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart

from compact_agent.pipes import ReaderGone
from compact_agent.session.last_run import BY_USER, ENDED_BY
from compact_agent.session.store import SessionStore
from tests.e2e.test_rewind_after_compaction import session
from tests.fakes.openai_server import FakeOpenAIServer, Reply, tool_results


def writer(req) -> Reply:
    if "write the notes" in req.last_user_text() and not tool_results(req):
        return Reply.tools([("write_file", {"path": "notes.txt", "content": "KESTREL\n"})])
    return Reply.text("done")


@pytest.mark.parametrize("gone", [ReaderGone(), BaseExceptionGroup("tools", [ReaderGone()])],
                         ids=["alone", "in a group"])
async def test_the_answer_and_the_result_of_its_call_are_saved(tmp_path, gone):
    def on_tool(obj: dict[str, Any]) -> None:
        if obj["type"] == "tool_result":  # the result's line meets the closed pipe
            raise gone

    with FakeOpenAIServer(writer) as server:
        s = session(tmp_path, server)
        try:
            with pytest.raises(BaseException) as raised:
                await s.run_turn("write the notes", on_tool=on_tool)
            assert raised.value is gone
            saved = SessionStore(s.store.root, s.session_id).load().messages
            assert s.messages == saved  # the turn goes on from what was saved
        finally:
            s.close()
    assert (s.cwd / "notes.txt").read_text() == "KESTREL\n"
    answer, results = saved[-2:]
    assert isinstance(answer, ModelResponse) and isinstance(results, ModelRequest)
    [call] = [p for p in answer.parts if isinstance(p, ToolCallPart)]
    [result] = results.parts
    assert call.tool_name == "write_file" and isinstance(result, ToolReturnPart)
    assert result.tool_call_id == call.tool_call_id and "notes.txt" in str(result.content)
    assert result.metadata["compact_agent"][ENDED_BY] == BY_USER  # as a turn the user stopped marks it
    assert "stopped by the user" not in str(result.content)  # it had finished: its own result
