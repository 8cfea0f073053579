"""The files a compaction restores are capped in number and, each, in tokens (README, pipeline.md:
"at most 5, 5K tokens each, 50K in all"). The total cap has its own test (test_compactor_room.py);
these pin the other two, which no other test noticed being switched off."""

from __future__ import annotations

from pathlib import Path

from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.config import Limits
from compact_agent.context.compaction import restore
from compact_agent.context.compaction.compactor import Compactor


def written(names: list[str]) -> list:
    """The agent wrote each of `names` in turn (the files it works on), then read a few others."""
    msgs: list = [ModelRequest(parts=[UserPromptPart("TASK: change every file")])]
    for i, name in enumerate(names):
        msgs.append(ModelResponse(parts=[ToolCallPart("write_file", {"path": name, "content": "z"}, tool_call_id=f"w{i}")]))
        msgs.append(ModelRequest(parts=[ToolReturnPart("write_file", "ok", tool_call_id=f"w{i}")]))
    for i in range(30):
        msgs.append(ModelResponse(parts=[TextPart(f"r{i}"), ToolCallPart("read_file", {"path": f"f{i}"}, tool_call_id=f"c{i}")]))
        msgs.append(ModelRequest(parts=[ToolReturnPart("read_file", "y" * 12_000, tool_call_id=f"c{i}")]))
    return msgs


async def summarize(messages, prompt):
    return "<summary>" + "the user asked to change every file; done so far. " * 20 + "</summary>"


async def restored_after_compaction(tmp_path: Path, n: int, chars: int) -> tuple[list[list[Path]], list[int]]:
    """Compact a history that wrote n files of `chars` characters each (big0 first): the paths each
    re-read was asked for and the per-file cap it was given."""
    files = []
    for i in range(n):
        (f := tmp_path / f"big{i}.txt").write_text("z" * chars)
        files.append(f)
    asked: list[list[Path]] = []
    caps: list[int] = []

    def reread(paths: list[Path], per_file: int) -> list:
        asked.append(list(paths))
        caps.append(per_file)
        returns = [ToolReturnPart("read_file", p.read_text()[: per_file * 4], tool_call_id=f"r{k}")
                   for k, p in enumerate(paths)]
        return [ModelResponse(parts=[ToolCallPart("read_file", {"path": str(p)}, tool_call_id=f"r{k}")
                                     for k, p in enumerate(paths)]),
                ModelRequest(parts=returns)]

    rest = restore.Restorer(recent_files=lambda: list(reversed(files)), reread=reread, resolve=lambda s: tmp_path / s)
    comp = Compactor(Limits.for_window(200_000, 32_000), rest)
    await comp.compact(written([f.name for f in files]), summarize=summarize,
                       archive=lambda: tmp_path / "a.jsonl", overhead=5_000)
    return asked, caps


async def test_at_most_five_files_come_back_the_newest(tmp_path: Path):
    # Seven small files changed: all fit the 50K total, so only the count cap holds them back.
    asked, _ = await restored_after_compaction(tmp_path, 7, 2_000)
    assert Limits.for_window(200_000, 32_000).restore_max_files == 5
    assert [[p.name for p in paths] for paths in asked] == [[f"big{i}.txt" for i in range(2, 7)]], (
        "a compaction restores at most restore_max_files (5) files, the newest changed, oldest of them first")


async def test_each_file_is_cut_to_the_per_file_cap_and_counted_at_it(tmp_path: Path):
    # Five files of ~20K tokens: counted at the 5K cap they all fit the 50K total (counted whole,
    # only two would), and each comes back cut to 5K tokens.
    limits = Limits.for_window(200_000, 32_000)
    assert (limits.restore_tokens_per_file, limits.restore_total_tokens) == (5_000, 50_000)
    asked, caps = await restored_after_compaction(tmp_path, 5, 80_000)
    assert [len(paths) for paths in asked] == [5], "files over the per-file cap count at the cap against the total"
    assert caps == [5_000], "the re-read is given the per-file cap (restore_tokens_per_file) to cut each file to"
