"""What an incremental compaction restores beside the message it keeps, and how a record shows the
program's own context (the plan, hook output) and a call's list arguments."""

from __future__ import annotations

from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.context.compaction import summary
from compact_agent.context.compaction.restore import new_attachments, outdated_in
from compact_agent.context.layers.digest import default_digest

PLAN = "[compact-agent: current plan] The plan you were following:\n"
HOOK = "[compact-agent: SessionStart hook output (compact)]\nctx"


def attachment(*texts: str) -> ModelRequest:
    return ModelRequest(parts=[UserPromptPart(t) for t in texts])


def test_an_unchanged_attachment_is_not_restored_again_a_changed_one_is():
    kept = [ModelRequest(parts=[UserPromptPart("This session continues…"), UserPromptPart(PLAN + "[ ] a"),
                                UserPromptPart("The conversation was compacted again…"), UserPromptPart(PLAN + "[x] a")])]
    assert new_attachments([attachment(PLAN + "[x] a")], kept) == []  # the latest kept copy says the same
    back = attachment(PLAN + "[ ] a")  # the plan went back to what an older copy says: that is news
    assert new_attachments([back], kept) == [back]
    both = attachment(PLAN + "[x] a", HOOK)  # one part new: the whole message comes back
    assert new_attachments([both], kept) == [both]
    first = attachment(PLAN + "[x] a")
    assert new_attachments([first], []) == [first]  # nothing kept: everything is new


def test_a_kept_message_with_a_plan_since_changed_is_outdated():
    """An incremental compaction keeps its compaction message byte for byte: one holding a plan
    the current one says otherwise would carry the old plan beside the new on every request."""
    kept = [ModelRequest(parts=[UserPromptPart("This session continues…"), UserPromptPart(PLAN + "[ ] a")])]
    assert outdated_in([attachment(PLAN + "[x] a")], kept)
    assert not outdated_in([attachment(PLAN + "[ ] a")], kept)  # the same plan: keeping it is right
    assert not outdated_in([attachment(HOOK)], kept)  # a kind the message does not hold: only added
    assert not outdated_in([], kept)


def test_a_record_lists_what_the_user_asked_not_what_the_program_put_beside_it():
    call = ToolCallPart("todo_write", {"todos": [{"content": "a", "status": "pending"}, {"content": "b"}]},
                        tool_call_id="t1")
    history = [ModelRequest(parts=[UserPromptPart("make a plan")]), ModelResponse(parts=[call]),
               ModelRequest(parts=[ToolReturnPart("todo_write", "Plan updated", tool_call_id="t1")]),
               attachment(PLAN + "[ ] a\n[ ] b", HOOK), ModelResponse(parts=[TextPart("planned")])]
    steps = default_digest(history, framed=False)
    assert "- User: make a plan" in steps and "compact-agent" not in steps
    assert "todo_write(todos=[2 items]) -> ok" in steps
    record = summary.record_of(history)
    assert record is not None and "&lt;" not in summary.neutralise(record)
