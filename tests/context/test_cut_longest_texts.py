"""The summary request of one round too long for its room: its longest texts keep their beginning
and end until it fits (`cuts.cut_longest_texts`), and where no cut would make it fit it is sent as
it was, not made worse for nothing."""

from __future__ import annotations

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.context.compaction.cuts import cut_longest_texts
from compact_agent.context.compaction.summary import MIDDLE_MARK
from compact_agent.context.plumbing import tokens

PASTE = "HEAD " + "x" * 40_000 + " TAIL"  # ~10K tokens


def round_of(paste: str) -> list[ModelMessage]:
    return [ModelRequest(parts=[UserPromptPart(paste)]),
            ModelResponse(parts=[ToolCallPart("read_file", {"path": "a.py"}, tool_call_id="c1")]),
            ModelRequest(parts=[ToolReturnPart("read_file", "def f(): pass\n" * 40, tool_call_id="c1")])]


def test_the_longest_text_keeps_its_ends_and_the_request_fits() -> None:
    messages = round_of(PASTE)
    cut = cut_longest_texts(messages, 2_000)
    assert tokens.estimate(cut) <= 2_000 < tokens.estimate(messages)
    first = cut[0].parts[0]
    assert isinstance(first, UserPromptPart) and isinstance(first.content, str)
    assert first.content.startswith("HEAD ") and first.content.endswith(" TAIL") and MIDDLE_MARK in first.content
    assert cut[1:] == messages[1:]  # the shorter tool result and the call are as they were
    assert messages[0].parts[0] == UserPromptPart(PASTE, timestamp=messages[0].parts[0].timestamp)  # not touched


def test_what_fits_and_what_no_cut_would_fit_are_left_as_they_are() -> None:
    messages = round_of(PASTE)
    assert cut_longest_texts(messages, 20_000) == messages
    assert cut_longest_texts(messages, -500) == messages  # a room the fixed part already fills
    assert cut_longest_texts(messages, 100) == messages  # the call and the mark alone are more
    call: list[ModelMessage] = [
        ModelResponse(parts=[ToolCallPart("write_file", {"path": "a.py", "content": "y" * 9_000}, tool_call_id="c1")]),
        ModelRequest(parts=[ToolReturnPart("write_file", "ok", tool_call_id="c1")])]
    assert cut_longest_texts(call, 100) == call  # a call's arguments are never cut, whatever their size


def test_a_long_answer_keeps_its_ends_beside_its_call_whole() -> None:
    """The model's answer is cut as a long tool result is; the call beside it, longer still, is sent
    whole with its result. The response: 4 tokens, the answer's 10,010 characters 2,503, the call
    (`write_file`, its 9,031 characters of JSON arguments, its id `c1`) 2,261 + 3: 4,771. The
    result's request: 4 + 1 + 3 = 8. 4,779 in all, 1,779 over a room of 3,000: the answer keeps
    10,010 - 1,779 x 4 - 93 (the mark's length) = 2,801 characters."""
    call = ToolCallPart("write_file", {"path": "a.py", "content": "y" * 9_000}, tool_call_id="c1")
    messages: list[ModelMessage] = [
        ModelResponse(parts=[TextPart("HEAD " + "y" * 10_000 + " TAIL"), call]),
        ModelRequest(parts=[ToolReturnPart("write_file", "ok", tool_call_id="c1")])]
    assert tokens.estimate(messages) == 4_779
    cut = cut_longest_texts(messages, 3_000)
    answer, same = cut[0].parts
    assert isinstance(answer, TextPart) and len(answer.content) == 2_801 and MIDDLE_MARK in answer.content
    assert answer.content.startswith("HEAD y") and answer.content.endswith("y TAIL")
    assert same == call and cut[1] == messages[1]  # the call's arguments whole, its result beside it
    assert tokens.estimate(cut) <= 3_000
