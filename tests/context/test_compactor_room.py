"""A compaction never restores the context back over the threshold, and sizes in provider tokens.

Found by replaying Claude Code sessions at a 64K window: with a 26K-token system prompt and a
calibration ratio of 1.45, the default restore budget (a quarter of the window, in estimated
tokens) put the very first compacted request over the window.
"""

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
from compact_agent.context.plumbing import tokens


def history(n: int, size: int, edited: int = 5) -> list:
    """Reads of f0..f{n-1}, after the agent wrote big0..big{edited-1} (the files it works on)."""
    msgs: list = [ModelRequest(parts=[UserPromptPart("TASK: read everything")]),
                  ModelResponse(parts=[ToolCallPart("write_file", {"path": f"big{i}.txt", "content": "z"},
                                                    tool_call_id=f"w{i}") for i in range(edited)]),
                  ModelRequest(parts=[ToolReturnPart("write_file", "ok", tool_call_id=f"w{i}") for i in range(edited)])]
    for i in range(n):
        msgs.append(ModelResponse(parts=[TextPart(f"r{i}"), ToolCallPart("read_file", {"path": f"f{i}"}, tool_call_id=f"c{i}")]))
        msgs.append(ModelRequest(parts=[ToolReturnPart("read_file", "y" * size, tool_call_id=f"c{i}")]))
    return msgs


async def summarize(messages, prompt):
    return "<summary>" + "the user asked to read everything; done so far. " * 20 + "</summary>"


def restorer_for(tmp_path: Path, n: int, chars: int) -> tuple[restore.Restorer, list]:
    files = []
    for i in range(n):
        f = tmp_path / f"big{i}.txt"
        f.write_text("z" * chars)
        files.append(f)
    asked: list = []

    def reread(paths, per_file):
        asked.append(list(paths))
        cut = per_file * 4
        return [ModelResponse(parts=[ToolCallPart("read_file", {"path": str(p)}, tool_call_id=f"r{k}") for k, p in enumerate(paths)]),
                ModelRequest(parts=[ToolReturnPart("read_file", p.read_text()[:cut], tool_call_id=f"r{k}") for k, p in enumerate(paths)])]

    return restore.Restorer(recent_files=lambda: list(files), reread=reread,
                            resolve=lambda s: tmp_path / s), asked


async def test_restore_is_capped_by_the_room_left_under_the_threshold(tmp_path: Path):
    limits = Limits.for_window(64_000, 8_192)
    rest, asked = restorer_for(tmp_path, 5, 20_000)
    comp = Compactor(limits, rest)
    comp.ratio = 1.45
    overhead = 18_000  # estimated tokens of a large system prompt
    msgs = history(30, 2_000)
    result = await comp.compact(msgs, summarize=summarize, archive=lambda: tmp_path / "a.jsonl", overhead=overhead,
                                tokens_before=60_000)
    assert result.tokens_after < limits.threshold
    # Sizes are in provider tokens, like tokens_before: the estimate scaled by the ratio.
    assert result.tokens_after == comp.scaled(tokens.estimate(result.messages) + overhead)
    restored = sum(len(paths) for paths in asked)
    assert restored <= 1  # the window's default budget (16K, 5K per file) would have restored three


async def test_large_windows_restore_as_before(tmp_path: Path):
    limits = Limits.for_window(200_000, 32_000)
    rest, asked = restorer_for(tmp_path, 3, 8_000)
    comp = Compactor(limits, rest)
    result = await comp.compact(history(30, 2_000), summarize=summarize, archive=lambda: tmp_path / "a.jsonl",
                                overhead=5_000)
    assert asked and len(asked[0]) == 3
    assert result.tokens_after < limits.threshold


def test_read_paths_in_knows_claude_code_reads():
    msgs = [ModelResponse(parts=[ToolCallPart("Read", {"file_path": "/a.py"}, tool_call_id="x"),
                                 ToolCallPart("read_file", {"path": "b.py"}, tool_call_id="y")])]
    assert restore.read_paths_in(msgs) == {"/a.py", "b.py"}


def test_a_history_at_the_hard_limit_goes_whole_into_its_summary_request() -> None:
    """The output reserve holds room for the summary instruction beside the summary, and the hard
    limit keeps the estimate's margin: a history that reached the hard limit is sent whole to be
    summarised (the conversation's cached prefix with it). Counting the instruction again cut the
    oldest round after the first, and the summary request shared no cached prefix past it."""
    from compact_agent.context.compaction import summary_prompt
    from compact_agent.context.plumbing.settings import SUMMARY_INSTRUCTION_TOKENS, estimate_margin

    limits = Limits.for_window(64_000, 8_000)
    compactor = Compactor(limits)
    compactor.ratio = 1.0
    overhead = 20_000
    prompt = summary_prompt.compact_prompt("", "full")
    assert tokens.text_tokens(prompt) <= SUMMARY_INSTRUCTION_TOKENS  # what the reserve holds room for
    hard = limits.window - limits.output_reserve - estimate_margin(limits.window)
    assert compactor.summary_room(overhead, prompt) == hard - overhead
    longer = prompt + " and more" * 400  # an instruction past that room comes off the messages
    beyond = tokens.text_tokens(longer) - SUMMARY_INSTRUCTION_TOKENS
    assert beyond > 0 and compactor.summary_room(overhead, longer) == hard - overhead - beyond
