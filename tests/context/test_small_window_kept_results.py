"""A compaction in a small window shrinks the context, whatever the summary takes of its room.

In a 6K window (threshold 3,900) with a system prompt and tools of about 1,000 tokens, a summary
may take up to the output reserve, 1,500 tokens. The tool results the model is still using were
kept beside it within their own budget (an eighth of the room the threshold leaves, at least 500
tokens), which does not know the summary's size: with the newest round kept verbatim the history
right after the compaction was larger than before it ('compaction would not shrink the context
(3,961 → 4,186 tokens)'), every automatic compaction was refused, and the circuit breaker stopped
them. The results in use now take only what the rest of the new history leaves under the size of
the context it replaces."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.config import Limits
from compact_agent.context.compaction.compactor import Compactor
from compact_agent.context.compaction.result import NotSmaller
from compact_agent.context.plumbing import tokens

OVERHEAD = 1_050  # estimated tokens of the system prompt and tools


def reads(n: int, words: int) -> list:
    """A model reading modules one by one, naming what it read two steps before."""
    msgs: list = [ModelRequest(parts=[UserPromptPart("read every module")])]
    for i in range(n):
        msgs.append(ModelResponse(parts=[TextPart(f"mod{i - 1}.py uses func_{i - 2}_1"),
                                         ToolCallPart("read_file", {"path": f"mod{i}.py"}, tool_call_id=f"c{i}")]))
        msgs.append(ModelRequest(parts=[ToolReturnPart("read_file", "y " * (2 * words), tool_call_id=f"c{i}")]))
    return msgs


def summary_of(words: int):
    async def summarize(messages, prompt):
        return "<summary>" + "word " * words + "</summary>"
    return summarize


async def compact(tmp_path: Path, n: int, result_words: int, summary_words: int):
    comp = Compactor(Limits.for_window(6_000, 1_500), hot=lambda call_id: True)
    msgs = reads(n, result_words)
    before = comp.scaled(tokens.estimate(msgs) + OVERHEAD)
    result = await comp.compact(msgs, summarize=summary_of(summary_words), archive=lambda: tmp_path / "a.jsonl",
                                overhead=OVERHEAD, tokens_before=before)
    return comp, before, result


async def test_a_long_summary_leaves_out_the_results_in_use_rather_than_not_shrinking(tmp_path: Path):
    for n, result_words, summary_words in ((6, 400, 1_300), (7, 300, 1_300), (6, 450, 1_400)):
        comp, before, result = await compact(tmp_path, n, result_words, summary_words)
        assert result.tokens_after < before, (n, result_words, summary_words)
        assert result.tokens_after <= comp.limits.threshold
        assert result.event.detail["parts"]["other"] == 0  # no room for them beside this summary


async def test_the_results_in_use_are_kept_where_the_room_left_holds_them(tmp_path: Path):
    comp, before, result = await compact(tmp_path, 6, 400, 1_000)
    assert result.event.detail["parts"]["other"] > 0  # kept, as before
    assert result.tokens_after < before



async def test_a_summary_too_long_for_the_room_gives_way_to_a_record_of_the_steps(tmp_path: Path):
    """A summary longer than the room the window leaves (a model that writes the whole output
    reserve and more) cannot shrink the context whatever else is left out; a record of the steps,
    written without a model, can: where records are allowed it stands in, and no second summary is
    asked for."""
    asked: list[str] = []

    async def long_summary(messages, prompt):
        asked.append(prompt)
        return "<summary>" + "word " * 2_400 + "</summary>"

    def compactor() -> Compactor:
        return Compactor(Limits.for_window(6_000, 1_500), hot=lambda call_id: True)

    msgs = reads(6, 400)
    comp = compactor()
    before = comp.scaled(tokens.estimate(msgs) + OVERHEAD)
    result = await comp.compact(msgs, summarize=long_summary, archive=lambda: tmp_path / "a.jsonl",
                                overhead=OVERHEAD, tokens_before=before, record_fallback=True)
    assert result.strategy == "record" and result.tokens_after < before and len(asked) == 1
    archived: list[int] = []

    def archive() -> Path:
        archived.append(1)
        return tmp_path / "b.jsonl"
    with pytest.raises(NotSmaller):  # records not allowed: the summary's refusal, as before
        await compactor().compact(msgs, summarize=long_summary, archive=archive, overhead=OVERHEAD,
                                  tokens_before=before)
    with pytest.raises(NotSmaller):  # asked with instructions, the summary is what the user wants
        await compactor().compact(msgs, summarize=long_summary, archive=archive, overhead=OVERHEAD,
                                  tokens_before=before, instructions="focus on mod3", record_fallback=True)
    assert len(asked) == 3
