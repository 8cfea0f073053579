"""A record written after `/compact --from` carries what that compaction's message said.

`/compact --from N` keeps the first N messages verbatim and puts its compaction message after them,
then the results in use it kept (copies of the model's calls). A later record read the previous
record only from a compaction message the history starts with: this one it listed as an ask, cut to
80 characters, so the --from summary's text was gone; and since a kept copy is left out of a record
(the record before lists its call), the kept write_file was gone too: nothing said what was written.
"""

from __future__ import annotations

from pathlib import Path

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.context import Compactor, Limits
from compact_agent.context.compaction import summary
from compact_agent.context.compaction.restore import Restorer

from .file_reads import no_model, reads


async def _from_summary(messages: list[ModelMessage], prompt: str) -> str:
    return "<summary>The model wrote new_wr9.py (VALUE_wr9 = 42) and read six modules.</summary>"


async def test_a_record_after_compact_from_keeps_its_summary_and_the_head_before_it(tmp_path: Path) -> None:
    restorer = Restorer(recent_files=lambda: [], reread=lambda p, n: [], resolve=lambda s: tmp_path / s)
    c = Compactor(Limits.for_window(8_000, 2_000), restorer, hot=lambda call_id: call_id == "call_1")
    history: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("first: look around")]), ModelResponse(parts=[TextPart("Looked.")]),
        ModelRequest(parts=[UserPromptPart("TASK write new_wr9.py")]),
        ModelResponse(parts=[ToolCallPart("write_file", {"path": "new_wr9.py", "content": "VALUE_wr9 = 42"},
                                          tool_call_id="call_1")]),
        ModelRequest(parts=[ToolReturnPart("write_file", "Wrote new_wr9.py (1 line)", tool_call_id="call_1")]),
        *reads(0, 6), ModelResponse(parts=[TextPart("Wrote it.")])]
    part = await c.compact_partial(history, 2, "from", summarize=_from_summary, archive=lambda: None)
    assert summary.is_summary(part.messages[2]) and not summary.is_summary(part.messages[0])

    later = [*part.messages, ModelRequest(parts=[UserPromptPart("TASK-READALL more")]), *reads(100, 30),
             ModelResponse(parts=[TextPart("Read.")])]
    again = await c.compact(later, summarize=no_model, archive=lambda: None, prefer_record=lambda n: True)
    assert again.strategy == "record"
    record = "\n\n".join(summary.records_in(again.messages[0]))
    # The head kept verbatim first, then the --from summary as it was, then the steps since.
    assert record.index("first: look around") < record.index("VALUE_wr9 = 42") < record.index("TASK-READALL")
    assert "read six modules" in record
    assert "This session continues" not in record  # not listed as something the user asked


def test_the_record_of_a_history_with_the_summary_in_the_middle() -> None:
    head: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("first task")]), ModelResponse(parts=[TextPart("ok")])]
    message = summary.summary_message("wrote new_wr9.py with VALUE_wr9.", None, ["first task", "write it"],
                                      "partial", {}, [])
    after: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("now test it")]), ModelResponse(parts=[TextPart("Tested.")])]
    record = summary.record_of([*head, message, *after])
    assert record is not None
    assert record.index("first task") < record.index("VALUE_wr9") < record.index("now test it")
    # The same history starting with the summary reads as before: its record, then the steps.
    steps = summary.record_of(after)
    assert steps is not None
    assert summary.record_of([message, *after]) == "wrote new_wr9.py with VALUE_wr9.\n\n" + steps


async def test_the_result_merged_into_the_from_message_stays_with_its_call(tmp_path: Path) -> None:
    """`/compact --from N` after a read's result: that result and the compaction message are parts of
    one request. A later record listed the read as `-> no result`: the model was told a read it made
    had failed."""
    restorer = Restorer(recent_files=lambda: [], reread=lambda p, n: [], resolve=lambda s: tmp_path / s)
    c = Compactor(Limits.for_window(8_000, 2_000), restorer)
    history: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("read setting_values.py")]),
        ModelResponse(parts=[ToolCallPart("read_file", {"path": "setting_values.py"}, tool_call_id="call_208")]),
        ModelRequest(parts=[ToolReturnPart("read_file", "SETTING = 1\n" * 157, tool_call_id="call_208")]),
        ModelResponse(parts=[TextPart("Read it.")]), ModelRequest(parts=[UserPromptPart("TASK more")]),
        *reads(0, 6), ModelResponse(parts=[TextPart("Done.")])]
    part = await c.compact_partial(history, 3, "from", summarize=_from_summary, archive=lambda: None)
    merged = part.messages[2]
    assert summary.is_summary(merged) and isinstance(merged.parts[0], ToolReturnPart)  # the case at hand

    later = [*part.messages, ModelRequest(parts=[UserPromptPart("TASK-READALL more")]), *reads(100, 30),
             ModelResponse(parts=[TextPart("Read.")])]
    again = await c.compact(later, summarize=no_model, archive=lambda: None, prefer_record=lambda n: True)
    assert again.strategy == "record"
    record = "\n\n".join(summary.records_in(again.messages[0]))
    assert 'read_file(path="setting_values.py") -> ok (157 lines)' in record, record
    assert "no result" not in record, record
    assert record.index("setting_values.py") < record.index("VALUE_wr9 = 42") < record.index("TASK-READALL")
