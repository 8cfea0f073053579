"""A `todo_write` call with a status the plan does not have is one plain line, to the model and on
screen: `⎿ error: item 1: status 'blocked' is not one of pending, in_progress, done; the plan is
unchanged`. It showed pydantic-ai's validation errors as JSON (`error: {"error":[{"type":
"literal_error",...`), and a second such call in the turn ended it (the tool's retries ran out)."""

from __future__ import annotations

from tests.fakes.openai_server import Reply, tool_results

from .repl_driver import drive

BAD = ("todo_write", {"todos": [{"content": "look", "status": "blocked"}]})
GOOD = ("todo_write", {"todos": [{"content": "look", "status": "in_progress"}]})
LINE = "item 1: status 'blocked' is not one of pending, in_progress, done; the plan is unchanged"


def answers(req) -> Reply:
    done = sum(1 for m in req.messages if m.get("role") == "tool")
    return Reply.tools([[BAD, BAD, GOOD][done]]) if done < 3 else Reply.text("PLANNED")


async def test_a_wrong_status_is_one_plain_line_and_the_turn_goes_on(tmp_path) -> None:
    run = await drive(tmp_path, answers, ["plan it\r"], permission_mode="yes")
    assert run.out.count(f"⎿ error: {LINE}\n") == 2, run.out
    assert "literal_error" not in run.out and "PLANNED" in run.out and "⎿ Plan updated (0/1 done)" in run.out
    [first] = [r for r in tool_results(run.server.requests[1])]
    assert first["content"] == LINE
