"""The files a compaction restored are not listed as the model's reads at the next one.

A compaction reads the files the model changed again from disk and puts them after its summary, as
read_file calls of the program's (`restore_…`). The next compaction listed them among the "Files read
recently" as if the model had read them: the model wrote new_wr9.py once and never read it.
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
from compact_agent.context.compaction import ledger
from compact_agent.context.compaction.restore import Restorer

from .file_reads import reads, wrote_then_read

RESTORE = {"compact_agent": {"synthetic": "restore"}}
LISTED = "Files read recently (not restored; read them again if needed): "


def _restore(path: str, call_id: str) -> list[ModelMessage]:
    """As the agent restores a file (toolset.py `mention_messages`, kind "restore")."""
    return [ModelResponse(parts=[ToolCallPart("read_file", {"path": path}, tool_call_id=call_id)], metadata=RESTORE),
            ModelRequest(parts=[ToolReturnPart("read_file", "VALUE_wr9 = 42\n", tool_call_id=call_id,
                                               metadata=RESTORE)], metadata=RESTORE)]


def _listed(m: ModelMessage) -> list[str]:
    text = "\n".join(str(p.content) for p in m.parts if isinstance(p, UserPromptPart))
    return [line.removeprefix(LISTED) for line in text.splitlines() if line.startswith(LISTED)]


async def _summary(messages: list[ModelMessage], prompt: str) -> str:
    return "<summary>Wrote new_wr9.py, read the modules.</summary>"


async def test_the_next_compaction_lists_a_restored_file_as_no_read_of_the_models(tmp_path: Path) -> None:
    written = tmp_path / "new_wr9.py"
    written.write_text("VALUE_wr9 = 42\n")
    restores = iter(range(100))

    def reread(paths: list[Path], n: int) -> list[ModelMessage]:
        return [m for p in paths for m in _restore(p.name, f"restore_0_{next(restores):012d}")]

    restorer = Restorer(recent_files=lambda: [written], reread=reread, resolve=lambda s: tmp_path / s)
    compactor = Compactor(Limits.for_window(8_000, 2_000), restorer)
    history = wrote_then_read("write new_wr9.py, then read the modules")
    first = await compactor.compact(history, summarize=_summary, archive=lambda: None)
    assert any(isinstance(p, ToolCallPart) and p.tool_call_id.startswith("restore_")
               for m in first.messages for p in m.parts)  # written since none before: restored
    history = [*first.messages, ModelRequest(parts=[UserPromptPart("read more")]), *reads(100, 4),
               ModelResponse(parts=[TextPart("Read 4 files.")]), ModelRequest(parts=[UserPromptPart("thanks")]),
               ModelResponse(parts=[TextPart("You are welcome.")])]
    second = await compactor.compact(history, summarize=_summary, archive=lambda: None)
    [listed] = _listed(second.messages[0])
    assert "src/m29.py" in listed and "new_wr9.py" not in listed, listed  # the program read it, not the model


def test_the_files_read_leave_out_the_restores_and_keep_the_models_reads() -> None:
    steps = [*_restore("a.py", "restore_0_000000000001"), *_restore("b.py", "restore_1_000000000001"),
             ModelResponse(parts=[ToolCallPart("read_file", {"path": "b.py"}, tool_call_id="r1")]),
             ModelRequest(parts=[ToolReturnPart("read_file", "x = 1\n", tool_call_id="r1")])]
    assert ledger.read_files(steps) == ["b.py"]
