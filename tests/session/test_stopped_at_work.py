"""A run that stopped after the model's tool calls, before it answered their results (killed while
that request was out, interrupted, or out of turns), is said when the session is read back: the
history ends at those results, and no warning said so."""

from __future__ import annotations

from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.agent.run.unfinished import unanswered_close
from compact_agent.session.store import SessionStore

AT_WORK = "stopped after the model's tool calls, before it answered their results"


def at_work() -> list:
    return [ModelRequest(parts=[UserPromptPart("fix the parser")]),
            ModelResponse(parts=[ToolCallPart("read_file", {"path": "parser.py"}, tool_call_id="c1")]),
            ModelRequest(parts=[ToolReturnPart("read_file", "def parse(): ...", tool_call_id="c1")])]


def test_a_history_ending_at_tool_results_is_said_once_and_not_after_the_next_run_goes_on(tmp_path):
    s = SessionStore(tmp_path, "s1")
    s.append(at_work())
    loaded = SessionStore(tmp_path, "s1").load()
    assert len(loaded.warnings) == 1 and AT_WORK in loaded.warnings[0], loaded.warnings
    assert "unanswered" not in loaded.warnings[0]  # no message of the user's went without an answer
    # The next run closes the turn (turn.py's _close_unanswered) and goes on: nothing more to say.
    again = SessionStore(tmp_path, "s1")
    history = again.load().messages
    close = unanswered_close(history)
    assert close is not None
    again.append([close, ModelRequest(parts=[UserPromptPart("go on")]), ModelResponse(parts=[TextPart("done")])])
    assert SessionStore(tmp_path, "s1").load().warnings == []


def test_a_session_that_ended_with_an_answer_is_read_back_without_a_word(tmp_path):
    s = SessionStore(tmp_path, "s1")
    s.append([*at_work(), ModelResponse(parts=[TextPart("fixed")])])
    assert SessionStore(tmp_path, "s1").load().warnings == []
