"""Records off in a small window: the window compacts with a summary cut to fit, or says why it cannot.

A 2,500-token window keeps a quarter of itself, 625 tokens, for the model's answer (the output
reserve); the hard limit is 2,500 - 625 - 50 (the estimate's 2% margin) = 1,825. The summary's own
instruction is budgeted at 700 tokens, more than the reserve, so the schedule expected a summary of
0 tokens there (`summary_size`) and, with `compaction_records=False` (no record written without a
model may stand in), decided that a compaction at the hard limit could not help. Nothing was
compacted and no event said why: each request was cut to the window by the last resort, old rounds
dropped with no summary of them, the history growing to four times the window.

The summary request does fit: it leaves out the tail the compaction keeps and, where still too
long, its oldest rounds, and asks for what the window leaves past its fixed part and its instruction
(`Schedule.summary_alone`: of 2,500 - 50 - 150 - 700 = 1,600 tokens left beside 150 fixed, half).
Where even the fixed part and the instruction fill the window, a compaction is tried and fails
"not sent" (a `compact` / `failed` event saying what takes the window), and the breaker pauses.
"""

from __future__ import annotations

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, UserPromptPart
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.usage import UsageLimits

from compact_agent.context import CompactionSettings, ContextManager, Event
from compact_agent.context.decisions.economics import Prices
from compact_agent.context.decisions.schedule_state import ScheduleState
from compact_agent.context.plumbing.settings import Limits
from tests.context.test_small_window_answer_room import small_window
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

WINDOW = 2_500
SUMMARY = "Pages 1 to 6 read: each lists its words."


def reading(pages: int = 16) -> FakeOpenAIServer:
    """A model that reads `pages` pages, one a request (about 390 tokens each), then says done."""
    read = {"n": 0}

    def answer(req: ChatRequest) -> Reply:
        if "<summary>" in req.last_user_text():
            return Reply.text(f"<summary>{SUMMARY}</summary>")
        read["n"] += 1
        return Reply.tools([("read", {"page": read["n"]})]) if read["n"] <= pages else Reply.text("done")
    return FakeOpenAIServer(answer, window=WINDOW)


async def run(server: FakeOpenAIServer, settings: CompactionSettings, window: int = WINDOW,
              instructions: str | None = None) -> tuple[str, list[Event]]:
    events: list[Event] = []
    model = OpenAIChatModel("fake-model", provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
    cm = ContextManager(window=window, settings=settings, event_handler=events.append)
    agent = Agent(model, capabilities=[cm], instructions=instructions)

    @agent.tool_plain
    def read(page: int) -> str:
        """Read a page."""
        return f"page {page}: " + " ".join(f"w{page}x{i}" for i in range(220))
    result = await agent.run("Read every page.", usage_limits=UsageLimits(request_limit=80))
    return result.output, events


@pytest.mark.parametrize("priced", [True, False], ids=["priced", "thresholds-only"])
async def test_records_off_in_a_small_window_compacts_with_a_summary_that_fits(priced: bool) -> None:
    settings = CompactionSettings(compaction_records=False, priced_compaction=priced)
    with reading() as server:
        output, events = await run(server, settings)
    assert output == "done"
    assert server.rejected == []
    compactions = [e for e in events if e.layer == "compact"]
    assert compactions and {e.action for e in compactions} == {"full"}  # summaries, none failed
    assert any(e.detail.get("reason") == "window" for e in compactions)
    summary_requests = [r for r in server.requests if "<summary>" in r.last_user_text()]
    assert len(summary_requests) == len(compactions)
    for r in summary_requests:  # each fits the window with the room it asks for the summary: what the
        cap = int(r.body.get("max_completion_tokens") or r.body.get("max_tokens") or 0)  # window leaves (66-541)
        assert cap >= 50 and r.prompt_tokens + cap <= WINDOW
    # The model reads the summary of the pages the window no longer holds; no round was left out unsummarised.
    assert SUMMARY in server.requests[-1].all_text()
    assert not [e for e in events if e.action == "shrink" and e.detail.get("rounds_left_out")]


async def test_no_summary_request_fits_beside_the_instructions_and_it_is_said() -> None:
    """2,000 tokens: instructions of about 1,300 tokens and the summary's 700 leave no summary room.
    A compaction is tried, fails "not sent" naming what takes the window, and after three the breaker
    pauses; nothing was said before."""
    settings = CompactionSettings(compaction_records=False)
    with reading(pages=10) as server:
        _, events = await run(server, settings, window=2_000, instructions="Follow the house rules. " * 220)
    failed = [e for e in events if e.layer == "compact"]
    assert [e.action for e in failed] == ["failed"] * 3
    assert all(e.detail["error"].endswith("not sent") and "the instructions" in e.detail["error"] for e in failed)
    assert failed[-1].detail.get("paused") is True
    assert not [r for r in server.requests if "<summary>" in r.last_user_text()]  # none was sent to be refused


def test_the_summary_alone_is_half_of_what_the_window_leaves() -> None:
    limits = Limits.for_window(WINDOW, 32_000)
    assert (limits.output_reserve, limits.window - limits.output_reserve - 50) == (625, 1_825)
    state = ScheduleState(prices=Prices())
    assert state.summary_size(limits) == 0  # the reserve holds no summary beside its 700-token instruction
    assert state.summary_alone(limits, 150) == 800  # (2,500 - 50 - 150 - 700) // 2
    assert state.summary_alone(limits, 1_148) == 301  # (2,500 - 50 - 1,148 - 700) // 2
    assert state.summary_alone(limits, 1_750) is None  # nothing left: no summary request can be sent
    state.summary_tokens = 120  # the summaries written so far were shorter: their size is expected
    assert state.summary_alone(limits, 150) == 120


def test_over_the_hard_limit_with_no_record_a_summary_alone_helps_where_one_fits() -> None:
    """A 2,048-token window (a 512 reserve: no summary beside the 700-token instruction, hard limit
    2,048 - 512 - 40 = 1,496), no record to keep, 1,600 tokens of history, a rebuild of 300."""
    history: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("go")])]
    cm, schedule = small_window(2_048, 512, rebuild=300, record=None)
    assert schedule.hard_limit(cm) == 1_496
    # 2,048 - 40 - 0 - 700 = 1,308 left: a summary of 654, and 300 < 0.9 x 1,600: it helps (it did not).
    assert schedule.summary_alone(cm.limits, 0) == 654 and schedule.compaction_helps(cm, history, 1_600)
    # 1,200 fixed: 108 left, a summary of 54 is worth no request, and the history has room: no.
    cm, schedule = small_window(2_048, 512, overhead=1_200, rebuild=300, record=None)
    assert schedule.summary_alone(cm.limits, 1_200) is None
    assert not schedule.compaction_helps(cm, history, 1_600, fixed=1_200)
    # 1,400 fixed: 608 left for the history, less than the instruction: no summary request can be sent.
    # One is tried, to fail before it is sent and say so (`compact` / `failed`, "not sent").
    cm, schedule = small_window(2_048, 512, overhead=1_400, rebuild=300, record=None)
    assert schedule.compaction_helps(cm, history, 1_600, fixed=1_400)
    # 2,008 fixed: no request fits at all, the window refuses it (pipeline.py): nothing is tried.
    cm, schedule = small_window(2_048, 512, overhead=2_008, rebuild=300, record=None)
    assert not schedule.compaction_helps(cm, history, 1_600, fixed=2_008)
