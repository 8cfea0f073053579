"""A compaction's event says how many of the messages the user typed it cut (to their ends, or to
their first characters) and left out: `typed_cut`, `typed_left_out` in its detail. The compaction
message said so to the model, and the user, whose long paste had been cut, was not told (the
REPL's line says it from these: tests/ui/test_typed_cut_said.py). Only this compaction's own cuts
count: a message a compaction before had cut is carried as it was, and is not counted again."""

from __future__ import annotations

from pathlib import Path

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart

from compact_agent.context import Compactor, Limits
from compact_agent.context.compaction.restore import Restorer
from compact_agent.context.compaction.summary import CUT_MARK, MARK, MIDDLE_MARK

from .file_reads import no_model, reads


def _turn(prompt: str, start: int) -> list[ModelMessage]:
    return [ModelRequest(parts=[UserPromptPart(prompt)]), *reads(start, 1), ModelResponse(parts=[TextPart("done")])]


def _carried(m: ModelMessage) -> list[str]:
    assert m.metadata is not None
    return list(m.metadata[MARK]["user_messages"])


async def test_the_event_counts_the_typed_messages_the_compaction_cut_and_left_out(tmp_path: Path) -> None:
    restorer = Restorer(recent_files=lambda: [], reread=lambda p, n: [], resolve=lambda s: tmp_path / s)
    c = Compactor(Limits.for_window(8_000, 2_000), restorer)
    history = [m for t in range(10) for m in _turn(f"TASK{t} " + "word " * 250, 10 * t)]
    first = await c.compact(history, summarize=no_model, archive=lambda: None, prefer_record=lambda n: True)
    carried = _carried(first.messages[0])
    cut = sum(CUT_MARK in t or MIDDLE_MARK in t for t in carried)
    left_out = first.messages[0].metadata[MARK]["users_left_out"]  # type: ignore[index]
    assert cut and left_out, carried
    assert first.event.detail["typed_cut"] == cut and first.event.detail["typed_left_out"] == left_out

    # The next compaction carries those as they were: cut by the one before, not by it.
    later = [*first.messages, *_turn("go on", 200)]
    second = await c.compact(later, summarize=no_model, archive=lambda: None, prefer_record=lambda n: True)
    marked = [t for t in _carried(second.messages[0]) if CUT_MARK in t or MIDDLE_MARK in t]
    assert len(marked) == cut, _carried(second.messages[0])
    assert "typed_cut" not in second.event.detail and "typed_left_out" not in second.event.detail, second.event.detail


async def test_nothing_is_said_where_every_typed_message_is_carried_whole(tmp_path: Path) -> None:
    restorer = Restorer(recent_files=lambda: [], reread=lambda p, n: [], resolve=lambda s: tmp_path / s)
    c = Compactor(Limits.for_window(8_000, 2_000), restorer)
    history = [m for t in range(10) for m in _turn(f"task {t}", 10 * t)]
    result = await c.compact(history, summarize=no_model, archive=lambda: None, prefer_record=lambda n: True)
    assert all(CUT_MARK not in t for t in _carried(result.messages[0]))
    assert "typed_cut" not in result.event.detail and "typed_left_out" not in result.event.detail
