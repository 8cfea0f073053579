"""The pipeline acting on prices: early compaction that pays, none in a session too short to pay
back, a threshold compaction deferred when it cannot pay, the output reserve following the model's
answers, and the file ledger that every compaction carries."""

from __future__ import annotations

from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart, UserPromptPart
from pydantic_ai.usage import RequestUsage

from compact_agent.config import Settings
from compact_agent.context.compaction import ledger
from compact_agent.context.decisions.economics import Prices, plan_compaction
from compact_agent.context.plumbing.settings import Limits
from compact_agent.replay.ours import Ours
from compact_agent.replay.simulate import replay
from tests.context import keeps
from tests.replay.synthetic import session, sim


async def run_ours(transcript, window: int, settings: Settings | None = None, before_compact=None):
    s = sim(window)
    ours = Ours(s, settings or Settings())
    ours.cm.before_compact = before_compact
    try:
        run = await replay(transcript, ours, s)
    finally:
        ours.close()
    return ours, run


async def test_a_long_session_in_a_large_window_compacts_early_where_it_pays():
    # 80 requests each adding ~2K tokens: 160K of history in a 200K window, which never forces a compaction.
    t = session([("refactor the parser module step by step", [8_000] * 80)])
    ours, run = await run_ours(t, 200_000)
    threshold = ours.cm.limits.threshold
    reasons = [c.event.detail.get("reason") for c in ours.cm.compactions]
    assert reasons and set(reasons) == {"priced"}
    assert max(run.series) < threshold // 2  # far below where the window would have forced it
    # Each compaction came at the economic point of the growth measured then (hand check of one).
    plan = plan_compaction(context=60_000, rebuild=5_000, overhead=0, summary_tokens=1_000, growth=2_000,
                           requests_so_far=40, prices=Prices())
    assert 5_000 < plan.point < 60_000 and plan.compact
    # The same session on thresholds alone (and without the view layers) sends the whole history.
    _, unpriced = await run_ours(t, 200_000, Settings(priced_compaction=False, collapse_enabled=False,
                                                      microcompact_trigger=10**6))
    assert max(unpriced.series) > 3 * max(run.series)


async def test_a_short_session_never_compacts_early():
    # Ten requests: no compaction could pay back before the session is expected to end.
    t = session([("look at the logs", [20_000] * 10)])
    ours, run = await run_ours(t, 200_000)
    assert not ours.cm.compactions


async def test_a_before_compact_handler_is_priced_by_what_it_returns():
    """A handler that adds no instructions leaves the compactions a handler-less pipeline makes
    (records, which need no model); once one adds instructions, compactions are summaries priced
    as such from then on."""
    t = session([("refactor the parser module step by step", [8_000] * 80)])
    plain, _ = await run_ours(t, 200_000)
    asked: list[str] = []

    async def quiet(trigger: str, instructions: str) -> str:
        asked.append(trigger)
        return instructions

    silent, _ = await run_ours(t, 200_000, before_compact=quiet)
    shape = [(c.strategy, c.tokens_before) for c in plain.cm.compactions]
    assert "record" in {s for s, _ in shape}
    assert [(c.strategy, c.tokens_before) for c in silent.cm.compactions] == shape
    assert len(asked) == len(shape) and not silent.cm.handler_instructs

    async def focused(trigger: str, instructions: str) -> str:
        return "keep the parser's public names"

    told, _ = await run_ours(t, 200_000, before_compact=focused)
    assert told.cm.handler_instructs
    assert told.cm.compactions and {c.strategy for c in told.cm.compactions} == {"full"}
    # The first was planned before the handler had said anything; the rest as summary requests.
    assert told.cm.compactions[0].tokens_before == shape[0][1]
    assert [c.tokens_before for c in told.cm.compactions[1:]] != [n for _, n in shape[1:]]


async def test_after_a_pause_longer_than_the_cache_keeps_it_compacts_on_the_cold_request():
    """Twenty steps of a tool whose results microcompact does not clear, then an hour past the
    cache's life: the first request of the next task goes out uncached anyway, and a record costs
    less than sending the cold history. Without the pause the compaction waits for its point."""
    from datetime import timedelta

    def transcript(pause: timedelta):
        t = session([("first task", [8_000] * 20), ("second task", [8_000] * 5)], tool="lookup")
        later = next(i for i, m in enumerate(t.messages) if isinstance(m, ModelRequest)
                     and any(isinstance(p, UserPromptPart) and p.content == "second task" for p in m.parts))
        for m in t.messages[later:]:
            if isinstance(m, ModelResponse):
                m.timestamp += pause
            else:
                for p in m.parts:
                    p.timestamp += pause
        return t

    cold, cold_run = await run_ours(transcript(timedelta(hours=2)), 200_000)
    warm, warm_run = await run_ours(transcript(timedelta()), 200_000)
    first_of_second = 21  # the 21st request answers "second task"
    assert cold_run.compaction_points == [first_of_second]
    assert [(c.strategy, c.event.detail["reason"]) for c in cold.cm.compactions] == [("record", "priced")]
    assert warm_run.compaction_points and warm_run.compaction_points[0] > first_of_second
    assert cold_run.series[first_of_second] < warm_run.series[first_of_second] // 2


def schedule_case(threshold: int):
    """A pipeline stand-in for `Schedule`: 10K of system prompt, a compaction keeping 10K tokens,
    2K of growth per request, 2K-token summaries, DeepSeek prices; forgetting is not priced here
    (test_forgetting.py prices it)."""
    from types import SimpleNamespace

    from compact_agent.context.decisions.economics import Growth
    from compact_agent.context.decisions.schedule import Schedule

    cm = SimpleNamespace(
        compactor=keeps.compactor(10_000),
        calibration=SimpleNamespace(ratio=1.0, tokens=lambda n: n), overhead=10_000, requests=50,
        settings=Settings(), limits=SimpleNamespace(threshold=threshold, window=64_000, output_reserve=4_000),
        breaker_open=False, handler_instructs=False, answer_asked=0)
    schedule = Schedule(Prices(), growth=Growth(total=100_000, requests=50), summary_tokens=2_000, reuse=None)
    return cm, schedule


def test_a_threshold_compaction_pays_only_if_it_holds_long_enough_before_the_next():
    # K = 40,000 x 0.028 + 10,700 x 0.28 + 2,000 x 0.42 = 4,956 (1e-6 $); saving = 20,000 x 0.028 = 560
    # per request; the next threshold crossing comes after (threshold - 10,000 - 10,000) / 2,000 requests.
    history = [ModelRequest(parts=[UserPromptPart("go")])]
    cm, schedule = schedule_case(42_000)  # 11 requests: 6,160 >= 4,956, compact at the threshold
    assert schedule.threshold_pays(cm, history, 30_000, 10_000)
    assert schedule.reason(cm, history, 43_000, suppressed=False) == "threshold"
    cm, schedule = schedule_case(36_000)  # 8 requests: 4,480 < 4,956, wait
    assert not schedule.threshold_pays(cm, history, 30_000, 10_000)
    assert schedule.reason(cm, history, 37_000, suppressed=False) == ""
    # ... until the request would not leave room for the answer: then whatever it costs.
    assert schedule.hard_limit(cm) == 64_000 - 4_000 - 1_280
    assert schedule.reason(cm, history, 59_000, suppressed=False) == "window"


async def test_small_windows_compact_without_sending_over_the_window():
    t = session([("read the data", [6_000] * 30)])
    ours, run = await run_ours(t, 16_000)
    assert ours.cm.compactions and max(run.series) <= ours.cm.limits.window


def test_the_output_reserve_follows_the_longest_answer():
    from compact_agent.context import ContextManager

    cm = ContextManager(window=32_000, max_output=8_192)
    assert cm.limits.output_reserve == 8_000  # min(max output, 20K, W/4) before any answer
    cm.adapt_output_reserve(600)
    # 1.25 x 600 = 750, under the 1,024 floor and under a summary's room (2,000 + 700)
    assert cm.limits.output_reserve == 2_700
    assert cm.limits.threshold == 32_000 - 2_700 - cm.limits.buffer
    cm.adapt_output_reserve(4_000)  # a long answer: 5,000
    assert cm.limits.output_reserve == 5_000
    cm.adapt_output_reserve(100_000)  # never above the configured reserve
    assert cm.limits.output_reserve == Limits.for_window(32_000, 8_192).output_reserve


def test_the_ledger_reads_every_editing_tool_and_carries_earlier_ledgers():
    calls = ModelResponse(parts=[
        ToolCallPart("write_file", {"path": "a.py", "content": "x"}, tool_call_id="1"),
        ToolCallPart("Edit", {"file_path": "/src/b.py", "old_string": "a", "new_string": "b"}, tool_call_id="2"),
        ToolCallPart("apply_patch", {"input": "*** Begin Patch\n*** Add File: c.py\n+x\n*** Delete File: d.py\n"},
                     tool_call_id="3"),
        ToolCallPart("edit_file", {"path": "a.py", "old": "x", "new": "y"}, tool_call_id="4"),
        ToolCallPart("read_file", {"path": "e.py"}, tool_call_id="5"),
    ], usage=RequestUsage())
    carried = ModelRequest(parts=[UserPromptPart("summary")],
                           metadata={"compact_agent": {"files_changed": {"old.py": ["created"]}}})
    results = ModelRequest(parts=[ToolReturnPart("x", "ok", tool_call_id=str(i)) for i in range(1, 6)])
    files = ledger.changed_files([carried, calls, results])
    assert files == {"old.py": ["created"], "a.py": ["written", "edited"], "/src/b.py": ["edited"],
                     "c.py": ["created"], "d.py": ["deleted"]}
    assert ledger.changed_files([carried, calls, results], carried=False).keys() == {"a.py", "/src/b.py", "c.py",
                                                                                     "d.py"}
    assert ledger.read_files([calls]) == ["e.py"]
    assert ledger.render({"a.py": ["written", "edited"]}) == ["- a.py (written, edited)"]


def test_a_request_over_the_window_is_shrunk_keeping_the_users_request():
    from pydantic_ai.messages import TextPart

    from compact_agent.context import ContextManager
    from compact_agent.context.decisions.fit import shrink_to_fit

    cm = ContextManager(window=8_000)
    cm.layers = [layer for layer in cm.layers if hasattr(layer, "shrink")] or cm.layers
    view: list = [ModelRequest(parts=[UserPromptPart("TASK: check every module")])]
    for r in range(3):  # three rounds of four results of 2,500 characters: under a full preview each
        view.append(ModelResponse(parts=[TextPart(f"round {r}")] + [
            ToolCallPart("read_file", {"path": f"m{r}{k}.py"}, tool_call_id=f"c{r}{k}") for k in range(4)]))
        view.append(ModelRequest(parts=[ToolReturnPart("read_file", f"m{r}{k} " + "y" * 2_500, tool_call_id=f"c{r}{k}")
                                        for k in range(4)]))
    cm.overhead = 3_000
    before = cm.measure(view)
    assert before > 8_000
    shrunk, after = shrink_to_fit(cm, list(view), before)
    assert after <= 8_000 - 8_000 // 50 and after == cm.measure(shrunk)
    assert shrunk[0] is view[0]  # the user's request stays
    newest = [p for p in shrunk[-1].parts if isinstance(p, ToolReturnPart)]
    assert len(newest) == 4 and all(p.content.startswith(f"m2{k} ") for k, p in enumerate(newest))
    from compact_agent.context.plumbing import rounds
    assert rounds.unpaired(shrunk) == (set(), set())  # every call it sends has its result
