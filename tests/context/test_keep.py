"""What a compaction would keep is answered once per history: the same answer while nothing it
depends on has changed, a new one as soon as something has — the history rewritten in place, the
fixed part, the escalation, the tail budget, the read state a compaction resets, or the next
request."""

from __future__ import annotations

from pathlib import Path

from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)

from compact_agent.config import Limits, Settings
from compact_agent.context import ContextManager
from compact_agent.context.compaction.compactor import Compactor
from compact_agent.context.compaction.cuts import tail_start
from compact_agent.context.compaction.restore import Restorer
from compact_agent.context.plumbing.tokens import estimate
from compact_agent.context.wiring import Internals
from tests.context.test_compactor import fake_summary, history


def edited(tmp_path: Path, n_reads: int = 12, size: int = 4_000) -> tuple[list, list[Path]]:
    """`history(n_reads)` after the agent edited f0..f2, which exist on disk."""
    files = []
    for i in range(3):
        f = tmp_path / f"f{i}.txt"
        f.write_text(f"content {i}\n")
        files.append(f)
    msgs = history(n_reads, size)
    msgs[1:1] = [ModelResponse(parts=[ToolCallPart("edit_file", {"path": f"f{i}.txt", "old": "a", "new": "b"},
                                                   tool_call_id=f"e{i}") for i in range(3)]),
                 ModelRequest(parts=[ToolReturnPart("edit_file", "ok", tool_call_id=f"e{i}") for i in range(3)])]
    return msgs, files


def test_the_answer_is_the_cut_a_compaction_makes_and_is_given_once_per_history():
    comp = Compactor(Limits.for_window(32_000, 4_000))
    msgs = history(12)
    plan = comp.preview(msgs, 1_000)
    start = tail_start(msgs, comp.tail_budget(1_000), comp.keep_results)
    assert 0 < plan.cut == start < len(msgs) and plan.tail_tokens == estimate(msgs[start:])
    assert plan.record is not None and plan.record_tokens is not None and plan.rebuild(2_000) > 2_000
    # The same messages in another list (a compaction works on a copy): the same answer.
    assert comp.preview(list(msgs), 1_000) is plan


def test_a_history_rewritten_in_place_gets_a_new_answer():
    comp = Compactor(Limits.for_window(32_000, 4_000))
    msgs = history(12)
    plan = comp.preview(msgs, 0)
    # Same length, same first and last message: only a message in between is another one.
    msgs[5] = ModelRequest(parts=[ToolReturnPart("read_file", "y" * 40_000, tool_call_id="c2")])
    again = comp.preview(msgs, 0)
    assert again is not plan and again.rebuild(2_000) != plan.rebuild(2_000)
    msgs.append(ModelResponse(parts=[TextPart("done")]))
    assert comp.preview(msgs, 0) is not again
    msgs[:] = history(12)  # rewritten whole, as an automatic compaction does
    assert comp.preview(msgs, 0) is not again


def test_what_the_answer_depends_on_gets_a_new_one():
    comp = Compactor(Limits.for_window(32_000, 4_000))
    msgs = history(12)
    plan = comp.preview(msgs, 0)
    assert comp.preview(msgs, 1_000) is not plan  # the fixed part
    plan = comp.preview(msgs, 0)
    comp.escalation = 1  # the thrash guard: a shorter tail, fewer files
    escalated = comp.preview(msgs, 0)
    assert escalated is not plan and escalated.cut > plan.cut
    comp.escalation = 0
    plan = comp.preview(msgs, 0)
    comp.tail_for = lambda base: 2 * base  # the schedule's measurements chose another tail
    longer = comp.preview(msgs, 0)
    assert longer is not plan and longer.cut < plan.cut
    comp.ratio = 1.3
    assert comp.preview(msgs, 0) is not longer


async def test_a_compaction_that_resets_the_read_state_drops_the_answer(tmp_path: Path):
    msgs, files = edited(tmp_path)
    recent = list(reversed(files))
    restorer = Restorer(recent_files=lambda: list(recent), reset=recent.clear, resolve=lambda s: tmp_path / s)
    comp = Compactor(Limits.for_window(32_000, 4_000), restorer)
    for f in files:
        f.write_text("z" * 4_000)  # 1,000 tokens each, restored after a compaction
    restoring = comp.preview(msgs, 0).rebuild(2_000)
    await comp.compact(list(msgs), summarize=fake_summary, archive=lambda: None)
    # The read state is empty now: a compaction of this history would restore nothing.
    assert comp.preview(msgs, 0).rebuild(2_000) <= restoring - 3_000


async def test_no_answer_outlives_the_request_it_was_asked_in(tmp_path: Path):
    msgs, files = edited(tmp_path, n_reads=30)
    restorer = Restorer(recent_files=lambda: list(reversed(files)), resolve=lambda s: tmp_path / s)
    comp = Compactor(Limits.for_window(16_000, 2_000), restorer)

    async def unavailable(messages: list, prompt: str) -> str:
        raise OSError("the summary model is unavailable")

    cm = ContextManager.wired(Internals(compactor=comp, summarizer=lambda cm: unavailable), window=16_000,
                              max_output=2_000, settings=Settings(compaction_records=False))
    made: list = []

    def preview(messages: list, overhead: int = 0):  # what the schedule and the compaction were told
        made.append(Compactor.preview(comp, messages, overhead))
        return made[-1]

    comp.preview = preview  # type: ignore[method-assign]
    n = len(msgs)
    await cm.prepare_view(msgs)  # over the window: asked, compaction tried, failed; history unchanged
    assert made and cm.failures == 1 and len(msgs) == n
    # The model's answer, its tools or the user may change the files before the next request.
    assert Compactor.preview(comp, msgs, cm.overhead) is not made[-1]


def test_the_tail_is_an_eighth_of_the_room_the_threshold_leaves_and_500_tokens_at_least():
    comp = Compactor(Limits.for_window(32_000, 4_000))
    room = comp.limits.threshold - comp.scaled(1_000)
    assert comp.base_tail(1_000) == room // 8 == comp.tail_budget(1_000)
    assert comp.base_tail(comp.limits.threshold) == 500  # no room left: still 500 tokens
    comp.escalation = 1  # the thrash guard halves the tail, not the figure
    assert comp.tail_budget(1_000) == room // 16 and comp.base_tail(1_000) == room // 8
