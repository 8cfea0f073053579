"""`/compact --from N` leaves the history ending as the finished turn it summarised did: at that
turn's answer, kept verbatim after the summary. It ended at the summary's request, and the next turn
closed it as one that 'ended before an answer': a close the model read and /history showed, of a
turn that had its answer. Every call keeps its result, whatever N."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart, repair_messages

from compact_agent.config import Limits
from compact_agent.context.compaction import summary
from compact_agent.context.compaction.compactor import Compactor
from compact_agent.context.compaction.result import CompactionError, NotSmaller
from compact_agent.context.plumbing import rounds

from .strategies import PROPS, dump, histories


async def summarize(messages, prompt) -> str:
    return "<summary>the later turns read files and answered</summary>"


def turn(ask: str, answer: str) -> list:
    return [ModelRequest(parts=[UserPromptPart(ask)]), ModelResponse(parts=[TextPart(answer)])]


async def test_the_answer_of_the_last_turn_is_kept_after_the_summary(tmp_path: Path) -> None:
    msgs = [*turn("first", "one " * 400), *turn("second", "two " * 400), *turn("third", "the third answer")]
    result = await Compactor(Limits.for_window(32_000, 4_000)).compact_partial(
        msgs, 2, "from", summarize=summarize, archive=lambda: tmp_path / "a")
    assert dump(result.messages[:2]) == dump(msgs[:2])  # the prefix as it was
    assert summary.is_summary(result.messages[2])
    assert dump(result.messages[-1:]) == dump(msgs[-1:])  # …and the end too: a finished turn's answer
    assert result.summarized == 3 and result.event.detail["parts"]["head_messages"] == 2


async def test_only_the_last_answer_after_n_is_refused_in_words(tmp_path: Path) -> None:
    msgs = [*turn("first", "one " * 400), *turn("second", "two")]
    with pytest.raises(CompactionError, match="nothing to summarise from that message but the last answer"):
        await Compactor(Limits.for_window(32_000, 4_000)).compact_partial(
            msgs, 3, "from", summarize=summarize, archive=lambda: tmp_path / "a")


@PROPS
@given(histories(min_turns=2), st.integers(0, 60))
def test_any_n_keeps_the_end_and_every_call_with_its_result(msgs, n) -> None:
    pivot = n % len(msgs)
    try:
        result = asyncio.run(Compactor(Limits.for_window(32_000, 4_000)).compact_partial(
            msgs, pivot, "from", summarize=summarize, archive=lambda: None))
    except (CompactionError, NotSmaller):
        return
    out = result.messages
    assert rounds.unpaired(out) == (set(), set())
    assert dump(repair_messages(out)) == dump(out)
    last = msgs[-1]
    if isinstance(last, ModelResponse) and not rounds.call_ids(last):  # a finished turn: it still ends at its answer
        assert dump(out[-1:]) == dump([last])
