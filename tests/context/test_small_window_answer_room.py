"""A small window keeps the room for the model's answer before any summary has been written: the
summary the schedule expects is no larger than the window leaves one (`ScheduleState.summary_size`),
not the 2,000-token prior, which is more than a 4,096-token window's whole room for the history."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart

from compact_agent.config import Settings
from compact_agent.context.decisions.economics import Growth, Prices
from compact_agent.context.decisions.schedule import Schedule
from compact_agent.context.plumbing.events import Event
from compact_agent.context.plumbing.tokens import estimate
from tests.context import keeps


def small_window(window: int, reserve: int, overhead: int = 0, rebuild: int = 500, record: int | None = None
                 ) -> tuple[Any, Schedule]:
    """A pipeline stand-in for a small window: `reserve` of output reserve, prices not known (a
    local server), 400 tokens of growth per request, no summary written yet."""
    cm = SimpleNamespace(
        compactor=keeps.compactor(rebuild, record=record),
        calibration=SimpleNamespace(ratio=1.0, tokens=lambda n: n), overhead=overhead, requests=20,
        settings=Settings(), limits=SimpleNamespace(threshold=window - reserve - window // 10, window=window,
                                                     output_reserve=reserve),
        breaker_open=False, handler_instructs=False, answer_asked=0)
    return cm, Schedule(Prices(known=False), growth=Growth(total=8_000, requests=20), reuse=None)


def test_before_any_summary_a_4k_window_keeps_the_room_for_the_answer():
    cm, schedule = small_window(4_096, 1_024)
    # A summary at the hard limit is asked for what the reserve leaves beside its instruction:
    # 1,024 - 700 = 324 tokens, not the 2,000 the prior expects.
    assert schedule.summary_tokens == 2_000 and schedule.summary_size(cm.limits) == 324
    assert schedule.measured_summary_size(cm.limits) is None  # the prior: no record is cut to it (record_cut.paying)
    # 2 x 324 = 648 < 4,096 - 1,024 - 81 = 2,991: the reserve is kept (with the prior: 4,000 >= 2,991,
    # and the limit was 4,096 - 81 = 4,015, leaving answers of 490 tokens 235).
    assert schedule.hard_limit(cm) == 2_991
    # A system prompt of 2,500 tokens and two such summaries (3,148) leave none: then it is given up.
    cm, schedule = small_window(4_096, 1_024, overhead=2_500)
    assert schedule.hard_limit(cm) == 4_015
    # Summaries written teach their size, within the same room.
    cm, schedule = small_window(4_096, 1_024)
    schedule.after_compaction(SimpleNamespace(summary="s", strategy="full", event=Event("compact", "full")), 150,
                              kept=600)
    assert schedule.summary_size(cm.limits) == 150 and schedule.hard_limit(cm) == 2_991
    assert schedule.measured_summary_size(cm.limits) == 150


def test_records_a_small_window_keeps_count_only_beyond_the_summary_it_leaves_room_for():
    cm, schedule = small_window(4_096, 1_024)
    record = SimpleNamespace(summary="", strategy="record", event=Event("compact", "record"))
    # Kept 2,700, of it 1,000 of records: a summary (324 at most) would fold 676 of them; 2,024 + 400
    # of growth = 2,424 < 2,991, the reserve stays.
    schedule.after_compaction(record, 0, kept=2_700, records=1_000)
    assert schedule.hard_limit(cm) == 2_991
    # Kept 2,700 with 400 of records: a summary would fold 76 of them; 2,624 + 400 >= 2,991: every
    # compaction would be followed by another, and only the window is protected.
    schedule.after_compaction(record, 0, kept=2_700, records=400)
    assert schedule.hard_limit(cm) == 4_015


def test_where_the_reserve_holds_no_summary_the_record_is_what_a_compaction_keeps():
    history: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("go")])]
    # A 2,048-token window: a reserve of 512 holds no summary beside its 700-token instruction.
    cm, schedule = small_window(2_048, 512, rebuild=300, record=400)
    assert schedule.summary_size(cm.limits) == 0
    assert schedule.hard_limit(cm) == 2_048 - 512 - 40
    # Over the hard limit, the compaction that helps is the record's: 300 < 0.9 x 1,600, under the limit.
    assert schedule.compaction_helps(cm, history, 1_600)
    assert schedule.record_pays(cm, history, 400, tokens_before=1_600, reason="window")
    # With no record to keep (a step too long to list), a summary cut to what its own request leaves
    # (`summary_alone`, test_small_window_summary_without_records.py): it helps as the record did.
    cm, schedule = small_window(2_048, 512, rebuild=300, record=None)
    assert schedule.compaction_helps(cm, history, 1_600)


async def test_answers_in_a_4k_window_always_have_their_room():
    """A chat in a 4,096-token window whose answers are ~490 tokens: no request leaves less room than
    that. Before, requests went as far as the window less 2% (4,015 tokens), leaving an answer 235."""
    from pydantic_ai import Agent
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.usage import RequestUsage

    from compact_agent.context import ContextManager
    from compact_agent.context.testing import library_request

    answer = " ".join(f"word{i}" for i in range(260))  # 1,969 characters: ~492 tokens
    sizes: list[int] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        size = estimate(messages)
        usage = RequestUsage(input_tokens=size, output_tokens=len(answer) // 4)
        if library_request(messages) is not None:
            return ModelResponse(parts=[TextPart("<summary>We talked.</summary>")], usage=usage)
        sizes.append(size)
        return ModelResponse(parts=[TextPart(answer)], usage=usage)

    cm = ContextManager(window=4_096)
    agent = Agent(FunctionModel(model), capabilities=[cm])
    history: list[ModelMessage] = []
    for turn in range(30):
        history = (await agent.run(f"question {turn}", message_history=history)).all_messages()
    assert len(cm.compactions) >= 3
    assert max(sizes) + len(answer) // 4 <= 4_096, max(sizes)
    assert cm.hard_limit() == 4_096 - 1_024 - 81
