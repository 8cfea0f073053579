"""A compaction keeps the read of a file it restores unless its restored copy holds the file whole.

The restore reads a changed file as read_file shows it, numbered lines included, and cuts it at the
per-file budget. Whether it came back whole was judged by the file's size: a file of 1,900 short
lines (13,300 bytes, under the 16,000 characters a 4,000-token budget allows) passed for whole, its
numbered copy stopped at line 1142, and the read of lines 1500-1549 the model was answering from
was dropped with it. The restore now says which files it brought back whole.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)

from compact_agent.agent.safety.permissions import Permissions
from compact_agent.agent.tools.base import ToolEnv
from compact_agent.agent.tools.file_state import ReadFileState
from compact_agent.agent.tools.toolset import mention_messages
from compact_agent.config import Settings
from compact_agent.context import Compactor, Limits
from compact_agent.context.compaction.restore import Restorer
from compact_agent.context.plumbing.rounds import unpaired


def _compact(tmp_path: Path, lines: int, first: int) -> tuple[list[ModelMessage], list[ToolReturnPart]]:
    """Edit data.txt of `lines` short lines after reading 50 of it from line `first` (in use), then compact
    with the agent's restore: the history after, and the restored copies in it."""
    f = tmp_path / "data.txt"
    f.write_text("".join(f"v{i:05d}\n" for i in range(1, lines + 1)))
    env = ToolEnv(tmp_path, Settings(), ReadFileState(), Permissions(tmp_path, "yes"))
    env.read_state.record(f, f.stat().st_mtime_ns - 1)  # read before: a file to restore
    restorer = Restorer(recent_files=lambda: [f], resolve=lambda s: tmp_path / s,
                        reread=lambda paths, n: mention_messages(env, paths, n, kind="restore", salt="c1"))
    msgs: list[ModelMessage] = [
        ModelRequest.user_text_prompt(f"what is on line {first + 20} of data.txt?"),
        ModelResponse(parts=[ToolCallPart("read_file", {"path": "data.txt", "offset": first, "limit": 50},
                                          tool_call_id="r1")]),
        ModelRequest(parts=[ToolReturnPart("read_file", "".join(f"{i:6d}\tv{i:05d}\n" for i in range(first, first + 50)),
                                           tool_call_id="r1")]),
        ModelResponse(parts=[ToolCallPart("edit_file", {"path": "data.txt", "old_string": "v00005",
                                                        "new_string": "v0000X"}, tool_call_id="e1")]),
        ModelRequest(parts=[ToolReturnPart("edit_file", "ok", tool_call_id="e1")])]
    for k in range(8):  # later work that moves the read out of the verbatim tail
        msgs += [ModelResponse(parts=[ToolCallPart("glob", {"pattern": f"*{k}"}, tool_call_id=f"g{k}")]),
                 ModelRequest(parts=[ToolReturnPart("glob", "x " * 3000, tool_call_id=f"g{k}")])]
    msgs.append(ModelResponse(parts=[TextPart(f"Line {first + 20} is v{first + 20:05d}.")]))

    async def summarize(messages: list[ModelMessage], prompt: str) -> str:
        return "<summary>Looked at data.txt.</summary>"

    compactor = Compactor(Limits.for_window(32_000, 4_000), restorer, hot=lambda call_id: call_id == "r1")
    result = asyncio.run(compactor.compact(msgs, summarize=summarize, archive=lambda: None))
    assert unpaired(result.messages) == (set(), set())
    assert result.messages[-1] == msgs[-1]
    restored = [p for m in result.messages if isinstance(m, ModelRequest) for p in m.parts
                if isinstance(p, ToolReturnPart) and p.tool_call_id.startswith("restore_")]
    return result.messages, restored


def _kept_ids(messages: list[ModelMessage]) -> set[str]:
    return {p.tool_call_id for m in messages if isinstance(m, ModelRequest) for p in m.parts
            if isinstance(p, ToolReturnPart)}


def test_a_read_past_the_cut_of_a_restored_copy_is_kept(tmp_path: Path) -> None:
    messages, [copy] = _compact(tmp_path, 1_900, 1_500)
    assert "  1142\tv01142\n[truncated to ~" in str(copy.content)  # the copy stops before line 1500
    assert "r1" in _kept_ids(messages)  # so the read of lines 1500-1549 in use stays


def test_a_read_of_a_file_restored_whole_is_still_left_out(tmp_path: Path) -> None:
    messages, [copy] = _compact(tmp_path, 1_100, 1_000)
    assert str(copy.content).endswith("  1100\tv01100")
    assert "r1" not in _kept_ids(messages)  # the copy holds lines 1000-1049, newer


def test_a_restore_says_whole_only_of_what_it_holds_whole(tmp_path: Path) -> None:
    """A file read_file shows only part of (its first 2,000 lines) is not whole, under the budget too."""
    env = ToolEnv(tmp_path, Settings(), ReadFileState(), Permissions(tmp_path, "yes"))
    (tmp_path / "short.txt").write_text("a\n" * 10)
    (tmp_path / "long.txt").write_text("\n" * 2_500)
    (tmp_path / "bin.dat").write_bytes(b"\0\1\2" * 100)
    [_, request] = mention_messages(env, [tmp_path / n for n in ("short.txt", "long.txt", "bin.dat", "gone.txt")],
                                    50_000, kind="restore")
    marks = [p.metadata["compact_agent"].get("whole") for p in request.parts
             if isinstance(p, ToolReturnPart) and isinstance(p.metadata, dict)]
    assert marks == [True, None, None, None]
