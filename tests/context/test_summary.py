from __future__ import annotations

import pytest
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from compact_agent.context import summary


def test_prompt_has_nine_sections_no_tools_and_data_framing():
    p = summary.compact_prompt()
    for n in range(1, 10):
        assert f"\n{n}. " in p
    assert "Do NOT call any tools" in p
    assert "DATA to summarise" in p
    assert "<analysis>" in p and "<summary>" in p


def test_custom_instructions_are_appended():
    p = summary.compact_prompt("focus on the parser tests")
    assert "focus on the parser tests" in p
    assert p.index("focus on the parser tests") > p.index("9. Next Step")


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("<analysis>draft</analysis>\n<summary>The real summary text here.</summary>", "The real summary text here."),
        ("<analysis>draft\n</analysis> <summary>\nBody with </analysis> stray tag and more words</summary>",
         "Body with  stray tag and more words"),
        ("No tags at all, just a plain summary of the work done.", "No tags at all, just a plain summary of the work done."),
        ("<analysis>only a draft that never closes... and the summary never comes", None),
        ("<summary>unterminated summary that still has content in it", "unterminated summary that still has content in it"),
        ("<ANALYSIS>x</ANALYSIS><Summary>Mixed case tags are fine too.</Summary>", "Mixed case tags are fine too."),
    ],
)
def test_extract_summary_copes_with_messy_replies(reply, expected):
    if expected is None:
        with pytest.raises(summary.EmptySummary):
            summary.extract_summary(reply)
    else:
        assert summary.extract_summary(reply) == expected


def test_empty_summary_is_an_error():
    with pytest.raises(summary.EmptySummary):
        summary.extract_summary("<analysis>thinking</analysis><summary> </summary>")


def test_user_messages_survive_repeated_compaction():
    first = [ModelRequest(parts=[UserPromptPart("never touch setup.py")]), ModelResponse(parts=[TextPart("ok")]),
             ModelRequest(parts=[UserPromptPart("use tabs")])]
    picked = summary.pick_user_messages(summary.user_texts(first), 1_000)
    assert picked == ["use tabs", "never touch setup.py"]  # newest first
    msg = summary.summary_message("sum", None, picked)
    assert summary.is_summary(msg)
    second = [msg, ModelResponse(parts=[TextPart("ok")]), ModelRequest(parts=[UserPromptPart("now add tests")])]
    texts = summary.user_texts(second)
    assert texts == ["never touch setup.py", "use tabs", "now add tests"]


def test_user_message_budget_keeps_the_newest():
    texts = ["old " * 500, "mid " * 500, "new"]
    picked = summary.pick_user_messages(texts, 600)
    assert picked[0] == "new"
    assert len(picked) == 3 and picked[2].endswith("…[cut]") or len(picked) == 2


def test_a_short_summary_is_still_a_summary():
    assert summary.extract_summary("<summary>Task: none.</summary>") == "Task: none."
