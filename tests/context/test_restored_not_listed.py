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

from compact_agent.context import CompactionSettings, Compactor, ContextManager, Limits, Prices
from compact_agent.context.compaction import ledger, restore, summary
from compact_agent.context.compaction.restore import Restorer
from compact_agent.context.layers.microcompact import CLEARED, Microcompact
from compact_agent.context.plumbing.rounds import unpaired
from compact_agent.context.shaping import preview
from compact_agent.context.wiring import Internals


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


def _read(path: str, call_id: str, body: str = "\n".join(f"line {k}: x = {k}" for k in range(200)),
          **window: int) -> list[ModelMessage]:
    if window:  # read_file's result begins with the lines it holds of a file it reads part of
        start = window.get("offset", 1)
        end = start + window.get("limit", 2000) - 1
        body = f"[{path}: lines {start}-{end} of 5000; read more with offset={end + 1}]\n{body}"
    return [ModelResponse(parts=[ToolCallPart("read_file", {"path": path, **window}, tool_call_id=call_id)]),
            ModelRequest(parts=[ToolReturnPart("read_file", body, tool_call_id=call_id)])]


def test_a_tail_read_counts_only_as_the_model_has_it_whole() -> None:
    """A read the kept tail holds counts only where it goes out as it was (not cleared or previewed by
    a view layer: `sent_whole`) and reads the whole file: a slice (offset/limit) left the rest of a file
    the summarised part read whole, so that file is still one to read again."""
    summarized = [ModelRequest(parts=[UserPromptPart("look")]), *_read("src/a.py", "a1"), *_read("src/big.py", "g1")]
    tail = [*_read("src/a.py", "a2"), *_read("src/big.py", "g2", offset=900, limit=20)]
    assert ledger.read_files(summarized, after=tail) == ["src/big.py"]  # the slice does not count
    assert ledger.read_files(summarized, after=tail, sent_whole={"a2", "g2"}) == ["src/big.py"]
    assert ledger.read_files(summarized, after=tail, sent_whole=set()) == ["src/big.py", "src/a.py"]  # a2 cleared
    again = [*summarized[:-2], *_read("src/big.py", "g0", offset=900, limit=20)]  # the same slice: it has it
    assert ledger.read_files(again, after=tail) == []
    assert ledger.read_files([*summarized, *again[-2:]], after=tail) == ["src/big.py"]  # but not the whole
    claude = [ModelResponse(parts=[ToolCallPart("Read", {"file_path": "src/a.py"}, tool_call_id="r1")]),
              ModelRequest(parts=[ToolReturnPart("Read", "x", tool_call_id="r1")])]
    assert ledger.read_files(summarized, after=claude) == ["src/big.py"]  # one set of read tools (restore's too)
    view = ModelResponse(parts=[ToolCallPart("view", {"path": "src/c.py"}, tool_call_id="v1")])
    assert restore.read_paths_in([*claude, view]) == {"src/a.py", "src/c.py"}


async def test_a_tail_read_microcompact_cleared_leaves_the_file_listed() -> None:
    """`/compact --up-to` (a partial compaction, as manual.py runs it) of a history whose tail read of
    src/a.py microcompact had cleared: the view sends the placeholder, so the model does not have
    a.py; the message listed only src/b.py and told it nothing of a.py."""
    cm = ContextManager(window=64_000, settings=CompactionSettings(collapse_enabled=False, priced_compaction=False),
                        prices=Prices(known=False))
    micro = next(layer for layer in cm.layers if isinstance(layer, Microcompact))
    msgs: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("Fix a.py and b.py")]),
                                *_read("src/a.py", "a1"), *_read("src/b.py", "b1"),
                                ModelResponse(parts=[TextPart("Read both.")]),
                                ModelRequest(parts=[UserPromptPart("now look again")])]
    pivot = len(msgs)
    msgs += [*_read("src/a.py", "a2"), *_read("src/c.py", "c1"), ModelResponse(parts=[TextPart("Looked.")])]
    micro.cleared = {"a2": "count"}

    async def summarize(messages: list[ModelMessage], prompt: str) -> str:
        return "<summary>Read a.py and b.py.</summary>"

    with cm.summary_sized(summarize):
        result = await cm.compactor.compact_partial(msgs, pivot, "up_to", summarize=summarize, archive=lambda: None)
    [line] = _listed(result.messages[0])
    assert line.endswith("src/b.py, src/a.py"), line
    cm.apply_result(result)
    [sent] = [p.content for m in preview(cm, list(result.messages)).messages if isinstance(m, ModelRequest)
              for p in m.parts if isinstance(p, ToolReturnPart) and p.tool_call_id == "a2"]
    assert sent == CLEARED  # what the model has of that read


def test_the_manager_tells_its_compactor_once_which_tail_results_go_out_whole() -> None:
    """Wired as the manager is built (a conversation's copy builds its own compactor), before any
    compaction, a full one or a partial one its caller runs; a compactor wired in with its own keeps it."""
    cm = ContextManager(window=64_000)
    assert cm.compactor.sent_whole == cm.results_sent_whole

    def none_whole(messages: object) -> set[str]:
        return set()

    own = Compactor(Limits.for_window(64_000, 4_000))
    own.sent_whole = none_whole
    assert ContextManager.wired(Internals(compactor=own), window=64_000).compactor.sent_whole is none_whole
