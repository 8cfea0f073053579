"""A record written without a model lists each of the model's steps once, and only the model's.

After a `record` compaction the history holds the file it restored (a read_file call the program
made, `restore_…`) and the result still in use it kept (the model's own write_file call, copied).
The next record listed both again as new steps after the earlier record: in an 8K window, after
three such compactions, the model was told it wrote new_wr9.py four times and read it three times;
it wrote it once and never read it. Each record was also longer than the last.
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
from compact_agent.context.plumbing.markers import is_kept_result

from .file_reads import no_model, reads, wrote_then_read

WRITE = 'write_file(path="new_wr9.py"'
READ = 'read_file(path="new_wr9.py"'


def _turn(prompt: str, start: int, n: int) -> list[ModelMessage]:
    return [ModelRequest(parts=[UserPromptPart(prompt)]), *reads(start, n),
            ModelResponse(parts=[TextPart(f"Read {n} files.")])]


def _compactor(tmp_path: Path) -> Compactor:
    written = tmp_path / "new_wr9.py"
    written.write_text("VALUE_wr9 = 42\n")
    restores = iter(range(100))

    def reread(paths: list[Path], n: int) -> list[ModelMessage]:
        """As the agent restores a file (toolset.py `mention_messages`, kind "restore")."""
        k = next(restores)
        meta = {"compact_agent": {"synthetic": "restore"}}
        ids = [f"restore_{i}_{k:012d}" for i in range(len(paths))]
        return [ModelResponse(parts=[ToolCallPart("read_file", {"path": p.name}, tool_call_id=c)
                                     for p, c in zip(paths, ids, strict=True)], metadata=meta),
                ModelRequest(parts=[ToolReturnPart("read_file", p.read_text(), tool_call_id=c,
                                                   metadata={"compact_agent": {"synthetic": "restore", "whole": True}})
                                    for p, c in zip(paths, ids, strict=True)], metadata=meta)]

    restorer = Restorer(recent_files=lambda: [written], reread=reread, resolve=lambda s: tmp_path / s)
    # The model keeps using what its write returned: each compaction keeps that call and result.
    return Compactor(Limits.for_window(8_000, 2_000), restorer, hot=lambda call_id: call_id == "call_1")


def _record(m: ModelMessage) -> str:
    return "\n\n".join(summary.records_in(m))


async def test_each_record_lists_the_models_steps_once_without_the_restores_or_the_kept_calls(tmp_path: Path) -> None:
    compactor = _compactor(tmp_path)
    history = wrote_then_read("TASK-WRITEREAD wr9 write then read")
    records: list[str] = []
    for turn in range(3):
        result = await compactor.compact(history, summarize=no_model, archive=lambda: None,
                                         prefer_record=lambda n: True)
        assert result.strategy == "record"
        records.append(_record(result.messages[0]))
        history = list(result.messages)
        # What the compaction wrote in again: the file it restored and the write still in use.
        assert any(isinstance(p, ToolCallPart) and p.tool_call_id.startswith("restore_")
                   for m in history for p in m.parts)
        assert any(is_kept_result(m) and any(isinstance(p, ToolCallPart) and p.tool_call_id == "call_1"
                                             for p in m.parts) for m in history)
        history += _turn(f"TASK-READALL more{turn}", 100 + 20 * turn, 15)
    last = records[-1]
    assert last.count(WRITE) == 1, last  # the model wrote it once
    assert READ not in last, last  # and never read it: the program restored it
    # Each record is the one before it as it was, then only what came after it.
    for earlier, later in zip(records, records[1:], strict=False):
        assert later.startswith(earlier)
        assert WRITE not in later[len(earlier):] and READ not in later[len(earlier):]
    assert all(f"more{t}" in last for t in range(2)) and last.count('read_file(path="src/m00.py"') == 1


async def test_an_appended_update_lists_neither_the_restores_nor_the_kept_calls(tmp_path: Path) -> None:
    """The compaction message kept as it is (a cache hit) and a record of what came after it appended."""
    compactor = _compactor(tmp_path)
    history = wrote_then_read("TASK-WRITEREAD wr9 write then read")
    first = await compactor.compact(history, summarize=no_model, archive=lambda: None, prefer_record=lambda n: True)
    again = await compactor.compact([*first.messages, *_turn("TASK-READALL more", 100, 15)], summarize=no_model,
                                    archive=lambda: None, prefer_record=lambda n: True,
                                    prefer_incremental=lambda kept, records: True)
    assert again.event.detail["incremental"] and again.strategy == "record"
    [earlier, update] = summary.records_in(again.messages[0])
    assert WRITE in earlier and WRITE not in update and READ not in update, update
    assert 'read_file(path="src/m100.py"' in update


def test_a_kept_result_joined_with_the_next_message_leaves_that_message_listed() -> None:
    """The request half of a kept call is joined with the request after it (cuts.py `join`), whose
    parts its mark then covers: only the kept call and its result go, the user's words stay."""
    kept = {"compact_agent": {"synthetic": "kept"}}
    first = summary.summary_message("Earlier: wrote new_wr9.py.", None, ["write it"], "record", {}, [])
    steps: list[ModelMessage] = [first,
             ModelResponse(parts=[ToolCallPart("write_file", {"path": "new_wr9.py"}, tool_call_id="call_1")],
                           metadata=kept),
             ModelRequest(parts=[ToolReturnPart("write_file", "ok", tool_call_id="call_1"),
                                 UserPromptPart("now read it back")], metadata=kept),
             ModelResponse(parts=[TextPart("Done.")])]
    text = summary.record_of(steps)
    assert text == "Earlier: wrote new_wr9.py.\n\n- User: now read it back\n- Assistant: Done.", text
