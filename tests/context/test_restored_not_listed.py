"""The compaction message lists as "read recently (not restored)" only files it does not restore.

It said "Files read recently (not restored; read them again if needed): …, src/mod_01.py" while the
very next messages restored src/mod_01.py: the listing was made before the files to restore were
chosen, from every file the summarised part read.
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
from compact_agent.context.plumbing.rounds import unpaired


def _history(record: bool = False) -> list[ModelMessage]:
    """Reads of src/mod_01.py .. src/mod_05.py; src/mod_01.py is edited after its read."""
    msgs: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("rename func_1_0")])]
    for i in range(1, 6):
        msgs += [ModelResponse(parts=[ToolCallPart("read_file", {"path": f"src/mod_0{i}.py"}, tool_call_id=f"c{i}")]),
                 ModelRequest(parts=[ToolReturnPart("read_file", "def f(): pass\n" * 300, tool_call_id=f"c{i}")])]
        if i == 1:
            msgs += [ModelResponse(parts=[ToolCallPart("edit_file", {"path": "src/mod_01.py", "old_string": "f",
                                                                     "new_string": "g"}, tool_call_id="e1")]),
                     ModelRequest(parts=[ToolReturnPart("edit_file", "ok", tool_call_id="e1")])]
    msgs.append(ModelResponse(parts=[TextPart("Renamed it.")]))
    return msgs


def _compactor(tmp_path: Path) -> Compactor:
    (tmp_path / "src").mkdir()
    files = [tmp_path / "src" / f"mod_0{i}.py" for i in range(1, 6)]
    for f in files:
        f.write_text("def g(): pass\n")

    def reread(paths: list[Path], n: int) -> list[ModelMessage]:
        return [ModelResponse(parts=[ToolCallPart("read_file", {"path": str(p)}, tool_call_id=f"r{k}")
                                     for k, p in enumerate(paths)]),
                ModelRequest(parts=[ToolReturnPart("read_file", p.read_text(), tool_call_id=f"r{k}")
                                    for k, p in enumerate(paths)])]

    restorer = Restorer(recent_files=lambda: files[::-1], reread=reread, resolve=lambda s: tmp_path / s)
    return Compactor(Limits.for_window(16_000, 4_000), restorer)


def _listed(head: ModelMessage) -> list[str]:
    text = head.parts[0].content if isinstance(head, ModelRequest) and isinstance(head.parts[0], UserPromptPart) else ""
    assert isinstance(text, str)
    return [line for line in text.splitlines() if line.startswith("Files read recently")]


async def test_a_file_restored_is_not_listed_as_one_to_read_again(tmp_path: Path) -> None:
    async def summarize(messages: list[ModelMessage], prompt: str) -> str:
        return "<summary>Renamed func_1_0.</summary>"

    result = await _compactor(tmp_path).compact(_history(), summarize=summarize, archive=lambda: None)

    assert summary.is_summary(result.messages[0])
    restored = [p.args for m in result.messages for p in (m.parts if isinstance(m, ModelResponse) else [])
                if isinstance(p, ToolCallPart) and p.tool_call_id.startswith("r")]
    assert restored == [{"path": str(tmp_path / "src" / "mod_01.py")}]  # the file changed comes back
    [line] = _listed(result.messages[0])
    assert "src/mod_01.py" not in line  # so it is not one to read again
    assert all(f"src/mod_0{i}.py" in line for i in range(2, 5))  # the others only read are (mod_05 is in the tail)
    assert unpaired(result.messages) == (set(), set())


async def test_a_file_whose_latest_read_is_kept_verbatim_is_not_listed_as_one_to_read_again(tmp_path: Path) -> None:
    """src/mod_02.py read early (summarised) and again at the end (kept verbatim): the message listed it
    as read and not restored, "read them again if needed", right above the read the model still had.
    A read in the tail that failed does not count: the model has nothing of that file there."""
    async def summarize(messages: list[ModelMessage], prompt: str) -> str:
        return "<summary>Renamed func_1_0.</summary>"

    msgs = _history()[:-1]
    for k, (path, result, meta) in enumerate([
            ("./src/mod_02.py", "def f(): pass\n", None),  # the same file, spelt apart
            ("src/mod_03.py", "File not found", {"compact_agent": {"tool": {"error": True}}})]):
        msgs += [ModelResponse(parts=[ToolCallPart("read_file", {"path": path}, tool_call_id=f"again{k}")]),
                 ModelRequest(parts=[ToolReturnPart("read_file", result, tool_call_id=f"again{k}", metadata=meta)])]
    msgs.append(ModelResponse(parts=[TextPart("Renamed it.")]))
    result = await _compactor(tmp_path).compact(msgs, summarize=summarize, archive=lambda: None)

    tail = [p.tool_call_id for m in result.messages for p in (m.parts if isinstance(m, ModelResponse) else [])
            if isinstance(p, ToolCallPart)]
    assert tail[-2:] == ["again0", "again1"]  # both kept verbatim
    [line] = _listed(result.messages[0])
    assert "mod_02" not in line
    assert all(f"src/mod_0{i}.py" in line for i in (3, 4)), line  # mod_05: its only read is in the tail
