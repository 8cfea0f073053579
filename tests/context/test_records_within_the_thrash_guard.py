"""A compaction that keeps a record written without a model, where a summary would leave the room,
must not bring the next compaction within the thrash guard's requests (`Schedule.thrashes`): each
compaction rewrites the cached history, archives the transcript and shows on the screen. Asked only
of the kept compaction message, not of the record itself, records appended one after the other
took an 8K window's room until compactions came one or two requests apart."""

from __future__ import annotations

from itertools import pairwise

from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from compact_agent.context import CompactionEvent, ContextManager
from compact_agent.context.plumbing.events import Event
from compact_agent.context.testing import reply_to_library_request
from tests.context.test_records import schedule_case

GO: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("go")])]


def test_a_record_that_brings_the_next_compaction_within_the_thrash_guard_is_not_kept():
    """Rebuild 48,000 with the summary: 10,720 tokens of room, 5.4 requests. A 5,000-token record
    leaves 7,720: the window forces the next compaction in 3.9 requests, within the thrash guard's
    3 (+1). Priced, it would pay (840 + 324 + 339 < 2,436); a 4,500-token record (4.1 requests) may."""
    cm, schedule = schedule_case(rebuild=38_000)
    assert schedule.thrashes(cm, "window", 51_000, 48_000)
    assert not schedule.record_pays(cm, GO, 5_000, tokens_before=50_000, reason="window")
    assert schedule.record_pays(cm, GO, 4_500, tokens_before=50_000, reason="window")


async def test_records_do_not_bring_compactions_within_the_thrash_guard_of_each_other_in_an_8k_window():
    """A chat of turns that each read three ~600-token pages and answer, in an 8,000-token window with
    the default settings. Each compaction kept a record and appended the next to it; once the
    records took most of the room, compactions came two requests apart from request 195 on (and one
    apart later: 14 between requests 251 and 273, each leaving 5,000-5,400 tokens of a 5,840-token
    limit) where a summary left 1,844. Every compaction now leaves the thrash guard's requests."""
    turns = {"n": 0, "requests": 0}
    compacted: list[int] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        size = sum(len(str(getattr(p, "content", "") or getattr(p, "args", ""))) for m in messages for p in m.parts)
        usage = RequestUsage(input_tokens=size // 4, output_tokens=20)
        if (reply := reply_to_library_request(messages, "Pages read so far.", usage=usage)) is not None:
            return reply
        turns["requests"] += 1
        turns["n"] += 1
        if turns["n"] % 4:
            return ModelResponse(parts=[ToolCallPart("read_page", {"page": turns["n"]}, tool_call_id=f"r{turns['n']}")],
                                 usage=usage)
        return ModelResponse(parts=[TextPart("turn done")], usage=usage)

    def seen(event: Event) -> None:
        if isinstance(event, CompactionEvent) and event.action != "blocked":
            compacted.append(turns["requests"])

    cm = ContextManager(window=8_000, event_handler=seen)
    agent = Agent(FunctionModel(model), capabilities=[cm])

    @agent.tool_plain
    def read_page(page: int) -> str:
        return f"page {page}: " + " ".join(f"line-{page}-{i} ok" for i in range(200))

    history: list[ModelMessage] = []
    for turn in range(60):
        history = (await agent.run(f"Turn {turn}: please read the next pages of the manual",
                                   message_history=history)).all_messages()
    assert len(compacted) > 30  # the case: the window compacts all along
    gaps = [(b, b - a) for a, b in pairwise(compacted)]
    assert all(gap > cm.settings.thrash_requests for _, gap in gaps), gaps
