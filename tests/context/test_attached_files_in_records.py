"""A file the user attached to a message (`@path`) shows in a record as theirs, not the model's read.

The agent carries an attached file as a read_file call and result of its own before the user's
message (toolset.py `mention_messages`, kind "mention"; the message is merged into that result's
request). A record written without a model listed it as `read_file(path="notes.md") -> ok`, a step
of the model's taken before the user asked anything: the model never read it.
"""

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

from compact_agent.context.compaction import ledger, summary
from compact_agent.context.layers.digest import default_digest

MENTION = {"compact_agent": {"synthetic": "mention"}}


def _steps() -> list[ModelMessage]:
    return [
        ModelResponse(parts=[ToolCallPart("read_file", {"path": "notes.md"}, tool_call_id="mention_0_0123456789ab")],
                      metadata=MENTION, provider_name="compact-agent"),
        ModelRequest(parts=[ToolReturnPart("read_file", "1\tfirst\n2\tsecond\n", tool_call_id="mention_0_0123456789ab"),
                            UserPromptPart("summarise @notes.md")], metadata=MENTION),
        ModelResponse(parts=[ToolCallPart("read_file", {"path": "src/app.py"}, tool_call_id="call_1")]),
        ModelRequest(parts=[ToolReturnPart("read_file", "x = 1\n", tool_call_id="call_1")]),
        ModelResponse(parts=[TextPart("Two notes; app.py sets x.")])]


def test_a_record_says_the_user_attached_the_file() -> None:
    text = summary.record_of(_steps())
    assert text is not None
    assert text.splitlines()[:3] == ['- User attached: path="notes.md" -> ok (2 lines)', "- User: summarise @notes.md",
                                     '- read_file(path="src/app.py") -> ok (1 line)'], text
    assert 'read_file(path="notes.md")' not in text


def test_the_collapsed_digest_says_so_too_and_the_file_stays_one_to_read_again() -> None:
    assert '- User attached: path="notes.md"' in default_digest(_steps())
    # Its content goes with the summary as a read's would: the list of files to read again names it.
    assert ledger.read_files(_steps()) == ["src/app.py", "notes.md"]
