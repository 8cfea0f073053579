"""Forgetting is priced: how far back the model reaches, what a look-again costs, and the decisions
(early compaction, clearing old results, the kept tail) that weigh it."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import pytest
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.config import Settings
from compact_agent.context.decisions.economics import Growth, Prices, plan_compaction
from compact_agent.context.decisions.reuse import Reach, Reuse
from compact_agent.context.decisions.schedule import Schedule
from compact_agent.context.layers.microcompact import Microcompact
from compact_agent.context.plumbing import tokens
from compact_agent.context.plumbing.events import Budget
from compact_agent.context.plumbing.settings import CompactionSettings
from tests.context import keeps
from tests.shared_data import DATA, missing

OLD = "def resolve_lookup_chain(self):\n    return WhereNode.as_sql\n" + "    pass\n" * 400


def _round(i: int, content: str, text: str = "next") -> list[ModelMessage]:
    return [ModelResponse(parts=[TextPart(text), ToolCallPart("bash", {"command": f"step {i}"}, tool_call_id=f"c{i}")]),
            ModelRequest(parts=[ToolReturnPart("bash", content, tool_call_id=f"c{i}")])]


def history(reach_back: bool) -> list[ModelMessage]:
    """A read of OLD, then three small rounds, then a response that names what OLD held (or not)."""
    msgs: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("fix the lookup")])]
    msgs += _round(0, OLD)
    for i in range(1, 4):
        msgs += _round(i, f"ok {i}")
    said = "So resolve_lookup_chain builds it." if reach_back else "All steps done."
    return [*msgs, ModelResponse(parts=[TextPart(said)])]


def test_a_response_reaches_back_to_the_newest_message_holding_what_it_names():
    msgs = history(reach_back=True)
    reach = Reuse().observe(msgs)
    # From the read (message 2) to the end of the history before the response.
    depth = tokens.estimate(msgs[2:-1])
    assert reach == Reach(depth, depth, depth, depth)
    assert Reuse().observe(history(reach_back=False)) == Reach(0, 0)


def test_what_arrived_since_the_previous_response_is_no_reach():
    msgs = history(reach_back=True)
    # The name is also in the newest tool result: it needs no memory.
    msgs[-2] = ModelRequest(parts=[ToolReturnPart("bash", "resolve_lookup_chain again", tool_call_id="c3")])
    assert Reuse().observe(msgs) == Reach(0, 0)


def test_the_stall_rate_counts_recent_reaches_with_the_rule_of_succession():
    reuse = Reuse(recent=4)
    for depth in (0, 30_000, 5_000, 0, 40_000):  # the first falls out of the 4 recent ones
        reuse.reaches.append(Reach(depth, 0, depth, 0))
        while len(reuse.reaches) > reuse.recent:
            reuse.reaches.popleft()
    assert reuse.stall_rate(10_000) == pytest.approx((2 + 1) / (4 + 2))
    assert reuse.stall_rate(50_000) == pytest.approx(1 / 6)
    assert reuse.stall_rate(10_000, "result") == pytest.approx(1 / 6)
    assert Reuse().stall_rate(0) == 0.5  # nothing measured yet: even odds
    # A look-again: 40,000 cached + 2,000 (the prior source) uncached + 60 output, plus the wait.
    cost = reuse.stall_cost(Prices(), 40_000, wait_usd=0.02)
    assert cost == pytest.approx((40_000 * 0.028 + 2_000 * 0.28 + 60 * 0.42) / 1e6 + 0.02)


def test_an_early_compaction_pays_only_net_of_what_it_makes_the_model_look_for_again():
    # 30,000 of history, 10,000 kept: saving 20,000 x 0.028 = 560 (1e-6 $) a request; K = 10,000 x 0.28 +
    # 40,000 x 0.028 + 700 x 0.28 + 2,000 x 0.42 = 4,956, paid back in 8.9 requests of the 50 so far.
    args = dict(context=30_000, rebuild=10_000, overhead=10_000, summary_tokens=2_000, growth=100,
                requests_so_far=50, prices=Prices())
    assert plan_compaction(**args).compact
    # Look-agains worth 100 a request: 460 net, paid back in 10.8 requests: still pays.
    assert plan_compaction(**args, forget=100e-6).compact
    # Worth 560 or more: the context is still in use, and no saving is left: the 50 x 560 of look-agains
    # and K are never paid back within the session ((4,956 + 28,000) / 560 = 58.9 requests > 50).
    plan = plan_compaction(**args, forget=560e-6)
    assert not plan.compact and plan.saving == pytest.approx(0) and plan.payback == pytest.approx(58.85)


def _schedule_case(reaches: list[int]) -> tuple[SimpleNamespace, Schedule]:
    """10K of system prompt, a compaction keeping 10K of which 4K is verbatim tail, 100 tokens of growth a
    request, 2K summaries, DeepSeek prices; `reaches`: how far back the recent responses reached."""
    cm = SimpleNamespace(
        compactor=keeps.compactor(10_000, tail_tokens=4_000),
        calibration=SimpleNamespace(ratio=1.0, tokens=lambda n: n), overhead=10_000, requests=50,
        settings=Settings(compaction_records=False),
        limits=SimpleNamespace(threshold=180_000, window=200_000, output_reserve=8_000), breaker_open=False, handler_instructs=False, answer_asked=0)
    reuse = Reuse()
    reuse.reaches.extend(Reach(d, d, d, d) for d in reaches)
    return cm, Schedule(Prices(), growth=Growth(total=5_000, requests=50), summary_tokens=2_000, reuse=reuse)


def test_a_context_far_from_the_window_is_not_compacted_while_the_model_still_uses_it():
    history_ = [ModelRequest(parts=[UserPromptPart("go")])]
    # 60,000 of history: the saving is 50,000 x 0.028 = 1,400 a request.
    cm, schedule = _schedule_case([0] * 30)  # nothing reached back past the 4K tail: p = 1/32
    assert schedule.priced(cm, history_, 60_000, 10_000)
    # Look-agains: p x (20,000 x 0.028 + 2,000 x 0.28 + 60 x 0.42 + 20,000 wait) = p x 21,145.
    assert schedule.forget(cm, history_, 20_000) == pytest.approx(21_145.2e-6 / 32)
    cm, schedule = _schedule_case([0] * 20 + [8_000] * 10)  # a third reached past it: p = 11/32
    assert schedule.forget(cm, history_, 20_000) == pytest.approx(21_145.2e-6 * 11 / 32)
    assert not schedule.priced(cm, history_, 60_000, 10_000)


def test_the_kept_tail_grows_where_the_model_reaches_back_and_shrinks_where_it_does_not():
    cm, schedule = _schedule_case([0] * 30)
    assert schedule.choose_tail(cm, 8_000) == 4_000  # half the default: nothing needs more
    cm, schedule = _schedule_case([20_000] * 15 + [0] * 15)  # half the responses reach 20K back
    assert schedule.choose_tail(cm, 8_000) == 24_000  # 3x the default covers them
    # A third reach 10K back: with 100 tokens of growth a request the dropped part sinks slowly, and
    # twice the default (16K) covers them; at 3,000 a request it is soon past their reach anyway, and
    # half the default does (a flat chance at the tail's depth would keep 16K all the same).
    cm, schedule = _schedule_case([10_000] * 10 + [0] * 20)
    assert schedule.choose_tail(cm, 8_000) == 16_000
    schedule.growth = Growth(total=150_000, requests=50)
    assert schedule.choose_tail(cm, 8_000) == 4_000
    schedule.reuse = None
    assert schedule.choose_tail(cm, 8_000) == 8_000  # unpriced forgetting: the default


def _results(n: int) -> list[ModelMessage]:
    msgs: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("go")])]
    for i in range(n):
        msgs += _round(i, f"result {i} " + "x" * 8_000)
    return [*msgs, ModelResponse(parts=[TextPart("next")])]


@pytest.mark.parametrize(("forget", "cleared"), [(0.0, True), (1.0, False)])
def test_old_results_are_cleared_only_when_what_the_model_would_look_for_again_costs_less(forget, cleared):
    msgs = _results(20)
    mc = Microcompact(CompactionSettings(microcompact_keep_recent=5))
    asked: list[tuple[int, bool]] = []

    def price(depth: int, kind: str) -> float:
        asked.append((depth, kind))
        return forget * 1e-6 * 1_000

    budget = Budget(window=200_000, threshold=180_000, tokens=tokens.estimate(msgs), now=datetime.now(UTC),
                    prices=Prices(), growth=1_000.0, compact_at=180_000, forget=price)
    out = mc.apply(msgs, budget)
    assert bool(out.events) is cleared
    # Asked for the depth of the newest result it would clear (the 15th of 20): five rounds are newer.
    assert asked == [(tokens.estimate(msgs[2 * 15 + 1:]), "cold_result")]


DJANGO = DATA / "mini-swe-agent-deepseek"


@pytest.mark.skipif(not DJANGO.is_dir(), reason=missing(DJANGO))
async def test_a_trajectory_that_never_fills_the_window_is_not_made_to_forget():
    """A 156-step SWE-bench run whose context peaks at ~64K, replayed in a 200K window: it used to be
    compacted early twice and to leave its next step without what it needed 16 times (83% recall)."""
    from compact_agent.models import PRICING
    from compact_agent.replay.importers import load_transcript
    from compact_agent.replay.metrics import measure
    from compact_agent.replay.ours import Ours
    from compact_agent.replay.simulate import Sim, calibrate, replay
    from compact_agent.replay.standin import standin_summarize

    [path] = DJANGO.rglob("django__django-11797.traj.json")
    t = load_transcript(path)
    sim = Sim(200_000, calibrate(t), standin_summarize, max_output=8_192)
    ours = Ours(sim)
    try:
        m = measure([await replay(t, ours, sim)], PRICING["deepseek"])
    finally:
        ours.close()
    assert m.refs_needed > 100
    assert (m.stalls, m.recall, m.compactions) == (0, 1.0, 0)


def test_a_result_the_model_keeps_citing_is_kept_verbatim_by_a_compaction():
    from compact_agent.context import Compactor, Limits

    msgs = history(reach_back=True)
    reuse = Reuse()
    for i, m in enumerate(msgs):  # observe every response as the pipeline does
        if isinstance(m, ModelResponse):
            reuse.observe(msgs[: i + 1])
    assert reuse.hot("c0") and not reuse.hot("c1")  # the answer named what the read of OLD held
    compactor = Compactor(Limits.for_window(200_000, 8_192), hot=reuse.hot)
    kept = compactor.kept_results(msgs[:-1])
    assert [type(m) for m in kept] == [ModelResponse, ModelRequest]
    assert kept[0].parts[0].tool_call_id == kept[1].parts[0].tool_call_id == "c0"
    assert kept[1].parts[0].content == OLD and kept[1].metadata == {"compact_agent": {"synthetic": "kept"}}
    # Not in use any more: 30 later responses that name nothing from it.
    for _ in range(30):
        msgs = [*msgs, ModelRequest(parts=[UserPromptPart("go on")]), ModelResponse(parts=[TextPart("ok")])]
        reuse.observe(msgs)
    assert not reuse.hot("c0") and compactor.kept_results(msgs) == []
    assert Compactor(Limits.for_window(200_000, 8_192)).kept_results(msgs) == []  # no reuse measured: none


def test_tool_names_are_no_reach_and_what_the_user_typed_is_not_forgotten():
    msgs: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("rename parse_config everywhere")])]
    msgs += _round(0, OLD)
    for i in range(1, 4):
        msgs += _round(i, f"ok {i}")
    # Names the user's words (kept by every compaction) and a tool (its definition is in every request).
    msgs.append(ModelResponse(parts=[TextPart("parse_config next"), ToolCallPart("read_file", {"path": "x"},
                                                                                  tool_call_id="r")]))
    reuse = Reuse()
    reach = reuse.observe(msgs)
    assert reach.deepest == tokens.estimate(msgs[:-1]) and reach.deepest_cold == 0
    msgs += [ModelRequest(parts=[ToolReturnPart("read_file", "x", tool_call_id="r")]),
             ModelRequest(parts=[UserPromptPart("go on")]), ModelResponse(parts=[TextPart("again read_file")])]
    assert reuse.observe(msgs) == Reach()  # "read_file" is in an earlier call, but it is a tool's name


def test_changed_files_come_back_after_a_compaction_only_for_a_model_that_returns_to_them(tmp_path: Path):
    from compact_agent.context import Compactor, Limits, Restorer

    def edit(path: Path, i: int) -> list[ModelMessage]:
        path.write_text("x")
        return [ModelResponse(parts=[ToolCallPart("edit_file", {"path": str(path), "old_string": "a",
                                                                "new_string": "b"}, tool_call_id=f"e{i}")]),
                ModelRequest(parts=[ToolReturnPart("edit_file", "ok", tool_call_id=f"e{i}")])]

    a, b, c = (tmp_path / n for n in ("a.py", "b.py", "c.py"))
    reuse = Reuse()
    assert reuse.returns_to_changed_files()  # nothing measured: restore as before
    msgs: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("edit three files")])]
    for i, path in enumerate((a, b, c)):  # each changed once, and left
        msgs += edit(path, i)
        reuse.observe(msgs[:-1])
    assert not reuse.returns_to_changed_files()
    restorer = Restorer(recent_files=lambda: [c, b, a], file_tokens=lambda p: 100, resolve=Path)
    limits = Limits.for_window(200_000, 8_192)
    compactor = Compactor(limits, restorer=restorer, returns_to_changed=reuse.returns_to_changed_files)
    assert compactor.restorable(msgs, [], limits)[0] == []
    msgs += edit(a, 3)  # back to a file it changed
    reuse.observe(msgs[:-1])
    assert reuse.returns_to_changed_files()
    assert compactor.restorable(msgs, [], limits)[0] == [c, b, a]


def test_a_resumed_conversation_keeps_what_the_model_kept_reaching_for():
    from compact_agent.context import ContextManager

    msgs = history(reach_back=True)
    live = Reuse()
    for i, m in enumerate(msgs):
        if isinstance(m, ModelResponse):
            live.observe(msgs[: i + 1])
    cm = ContextManager(window=200_000)
    assert cm.schedule.reuse is not None and not cm.schedule.reuse.reaches
    cm.resume(msgs)  # a new manager on a stored conversation, after a restart
    assert list(cm.schedule.reuse.reaches) == list(live.reaches) and cm.schedule.reuse.hot("c0")
    # Its age too: the schedule's horizon (as long again as so far) counts the requests before it.
    assert cm.requests == sum(isinstance(m, ModelResponse) for m in msgs) > 0
    cm.resume(msgs)  # resuming again (every turn of the agent does) measures nothing twice
    assert len(cm.schedule.reuse.reaches) == len(live.reaches)


async def test_a_resumed_conversation_is_priced_at_once_by_its_own_age_and_growth():
    """A restart keeps what the schedule had measured: the conversation's age (its responses), how
    fast it grew (what each request added) and what the model reached for. A 40-request session,
    65K tokens into a 200K window and far past its cheapest point, is compacted at the first
    request after a resume, as it would have been without the restart."""
    from datetime import timedelta

    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from compact_agent.context import ContextManager
    from compact_agent.context.wiring import Internals

    def summarizer(messages: list, info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart("Read src/m0.py to src/m39.py; nothing changed yet.")])

    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    msgs: list = [ModelRequest(parts=[UserPromptPart("port the parser", timestamp=t0)])]
    for i in range(40):
        t = t0 + timedelta(seconds=20 * (i + 1))
        msgs.append(ModelResponse(parts=[TextPart(f"step {i}"), ToolCallPart("read_file", {"path": f"src/m{i}.py"},
                                                                              tool_call_id=f"c{i}")], timestamp=t))
        msgs.append(ModelRequest(parts=[ToolReturnPart("read_file", f"def block_{i}():\n" + "    x = 1\n" * 800,
                                                       tool_call_id=f"c{i}", timestamp=t)]))
    now = t0 + timedelta(seconds=20 * 41)  # the cache is still warm
    # Each request added an answer and one ~8,000-character result: 39 steps between the 40 answers.
    steps = [tokens.estimate(msgs[k:k + 2]) for k in range(1, 79, 2)]
    for resumed in (True, False):  # resumed, or the history handed to a new manager as it is
        history = list(msgs)
        cm = ContextManager.wired(Internals(clock=lambda: now), window=200_000,
                                  summary_model=FunctionModel(summarizer))
        if resumed:
            cm.resume(history)
            assert cm.requests == 40 and cm.schedule.growth.requests == 39
            assert cm.schedule.growth.rate == pytest.approx(sum(steps) / 39) and 2_000 < cm.schedule.growth.rate < 2_300
        view, tokens_now, compacted = await cm.prepare_view(history)
        # The first request measured the step since the newest answer, as a live manager would have.
        assert cm.schedule.growth.requests == 40 and cm.schedule.growth.latest_step == tokens.estimate(msgs[-2:])
        assert compacted and [c.event.detail["reason"] for c in cm.compactions] == ["priced"]
        assert tokens_now < 30_000 and cm.schedule.reuse is not None and cm.schedule.reuse.reaches


def test_no_priced_compaction_before_any_growth_is_measured_unless_the_cache_expired():
    """Without a growth there is no cheapest point (a new conversation, or one resumed with a single
    answer); a request whose cache expired needs none: not compacting sends it all uncached."""
    history_ = [ModelRequest(parts=[UserPromptPart("go")])]
    cm, schedule = _schedule_case([0] * 30)
    assert schedule.priced(cm, history_, 60_000, 10_000)  # 60K of history that nothing reaches into
    schedule.growth = Growth()
    assert not schedule.priced(cm, history_, 60_000, 10_000)
    assert schedule.priced(cm, history_, 60_000, 10_000, cold=True)


def test_over_the_threshold_only_the_look_agains_before_the_hard_limit_weigh_against_compacting_now():
    # 60 x 2K reaches past the 4K tail in the last 30: p = 11/32 of 21,145.2 (1e-6 $) = 7,269 a request,
    # far more than the 1,400 a request that holding 10K instead of 60K saves.
    history_ = [ModelRequest(parts=[UserPromptPart("go")])]
    cm, schedule = _schedule_case([0] * 20 + [8_000] * 10)
    cm.limits = SimpleNamespace(threshold=75_000, window=100_000, output_reserve=8_000)
    # Hard limit 100,000 - 8,000 - 2,000 = 90,000; at 80,000 (70,000 of history) it is 100 requests away
    # (growth 100): waiting forgets the same later, so compacting now adds 100 requests of look-agains:
    # 100 x 7,269 = 726,900 against 60,000 x 0.028 = 1,680 a request for (75,000 - 20,000) / 100 = 550
    # requests = 924,000 less K: pays.
    assert schedule.threshold_pays(cm, history_, 70_000, 10_000)
    # Room for 540 more requests before the hard limit (a larger window): the look-agains of 540 requests
    # outweigh what holding less saves: wait.
    cm.limits = SimpleNamespace(threshold=75_000, window=144_900, output_reserve=8_000)
    assert schedule.hard_limit(cm) == 144_900 - 8_000 - 2_898
    assert not schedule.threshold_pays(cm, history_, 70_000, 10_000)


def test_the_users_wait_is_priced_by_the_round_trips_the_session_timed():
    reuse = Reuse()
    assert reuse.wait_usd(0.02) == 0.02  # nothing timed (a replay): the configured wait of a 5-s round trip
    for s in (0.5, 0.4, 30.0):
        reuse.time_round_trip(s)
    assert reuse.wait_usd(0.02) == pytest.approx(0.02 * 0.5 / 5)  # the median, not one slow answer
    for s in (600.0, 600.0, 600.0):
        reuse.time_round_trip(s)
    assert reuse.wait_usd(0.02) == pytest.approx(0.02 * 12)  # a request that hung weighs a minute at most


async def test_a_live_run_times_its_requests_with_the_managers_clock():
    from datetime import timedelta

    from pydantic_ai import Agent
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from compact_agent.context import ContextManager
    from compact_agent.context.wiring import Internals

    now = [datetime(2026, 1, 1, tzinfo=UTC)]
    cm = ContextManager.wired(Internals(clock=lambda: now[0]), window=64_000)

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        now[0] += timedelta(seconds=3)  # the model takes 3 s to answer
        return ModelResponse(parts=[TextPart("done")])

    await Agent(FunctionModel(answer), capabilities=[cm]).run("hello")
    assert cm.schedule.reuse is not None and list(cm.schedule.reuse.round_trips) == [3.0]
    assert cm.schedule.reuse.wait_usd(0.02) == pytest.approx(0.02 * 3 / 5)


def test_an_early_compaction_counts_the_look_agains_only_until_the_window_would_force_one():
    # The case above with look-agains worth 700 a request, more than the 560 holding less saves: never
    # worth it over the session (50 requests so far, as many expected)...
    args = dict(context=30_000, rebuild=10_000, overhead=10_000, summary_tokens=2_000, growth=100,
                requests_so_far=50, prices=Prices(), forget=700e-6)
    assert not plan_compaction(**args).compact
    # ... but the window forces a compaction 5 requests from now, which drops the same: 5 x 700 = 3,500
    # lost against 50 x 560 = 28,000 saved, less K = 4,956: it pays, back in (4,956 + 3,500) / 560 = 15.1.
    plan = plan_compaction(**args, forget_span=5)
    assert plan.compact and plan.payback == pytest.approx((4_956 + 3_500) / 560, rel=1e-3)
    # 40 requests away: 28,000 lost, more than is saved after K.
    assert not plan_compaction(**args, forget_span=40).compact


def test_the_requests_until_the_window_forces_a_compaction_go_by_the_median_growth():
    growth = Growth()
    for size in (0, 100, 200, 10_200, 10_300, 10_400):  # four steps of 100 and one burst of 10,000
        growth.observe(size)
    assert growth.rate == pytest.approx(10_400 / 5)
    # 20,000 tokens of room: 9.6 requests at the mean, which the burst makes; 200 at the median step.
    assert growth.requests_until(20_000) == pytest.approx(200)
    assert Growth(total=5_000, requests=50).requests_until(20_000) == pytest.approx(200)  # no steps: the mean
    assert growth.requests_until(-5) == 1.0


def test_what_a_compaction_drops_sinks_with_each_request_after_it():
    reuse = Reuse()
    reuse.reaches.extend(Reach(d, d, d, d) for d in [0] * 6 + [5_000, 9_000])  # 8 responses
    # Right after dropping what is deeper than 4,000: 2 of 8 reached further, (2 + 1) / 10.
    assert reuse.stall_rate(4_000) == pytest.approx(0.3)
    # Over 4 requests of 2,000 growth the dropped part lies 4,000, 6,000, 8,000, 10,000 back:
    # 3/10, 2/10, 2/10, 1/10.
    assert reuse.stall_rate_over(4_000, 2_000, 4) == pytest.approx((0.3 + 0.2 + 0.2 + 0.1) / 4)
    assert reuse.stall_rate_over(4_000, 0, 4) == pytest.approx(0.3)  # no growth: no sinking
    assert reuse.stall_rate_over(4_000, 2_000, 0.2) == pytest.approx(0.3)  # at least the next request


def test_a_call_repeated_with_the_same_result_is_kept_once():
    """The same glob, run again and again with the same listing, was kept three and four times after
    every compaction: one copy, the newest, is what the model uses."""
    from compact_agent.context import Compactor, Limits

    listing = "src/a.py\nsrc/b.py\nsrc/c.py"
    msgs: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("look around")])]
    for i in range(4):
        msgs += [ModelResponse(parts=[ToolCallPart("glob", {"pattern": "**/*.py"}, tool_call_id=f"g{i}")]),
                 ModelRequest(parts=[ToolReturnPart("glob", listing if i < 3 else "src/a.py", tool_call_id=f"g{i}")])]
    compactor = Compactor(Limits.for_window(200_000, 8_192), hot=lambda call_id: True)
    kept = [m.parts[0].tool_call_id for m in compactor.kept_results(msgs) if isinstance(m, ModelRequest)]
    assert kept == ["g3"]  # the newest run: an older listing is what the glob said before (test_kept_results_newest_run.py)
