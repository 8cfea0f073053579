"""Where neither a summary nor a whole record fits a window the system prompt nearly fills, the
record (free) gives way, oldest steps first, before a summary is bought that lands over as well:
record_cut.py, `Compactor._compact`'s ceiling retry and `Schedule.record_pays`' no-room branch."""

from __future__ import annotations

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
from compact_agent.context.compaction.record_cut import LEFT_OUT, newest_steps, whole
from tests.context.test_records import schedule_case

STEPS = "\n".join(f"- read_file(path=\"f{i}.py\") -> ok" for i in range(6))  # 6 lines of 31 characters


def test_a_record_that_fits_is_kept_whole_and_one_too_long_keeps_its_newest_steps() -> None:
    # Counted in characters: L for LEFT_OUT, 31 for each step, 1 for a line break.
    L = len(LEFT_OUT)
    assert all(len(line) == 31 for line in STEPS.split("\n"))
    assert newest_steps(STEPS, 191, len) is STEPS and newest_steps(None, 10, len) is None  # 191 characters
    # L + 66: LEFT_OUT, a blank line (2) and two steps (63) = L + 65; three would be L + 97.
    cut = newest_steps(STEPS, L + 66, len)
    assert cut == LEFT_OUT + "\n\n" + "- read_file(path=\"f4.py\") -> ok\n- read_file(path=\"f5.py\") -> ok"
    assert len(cut) == L + 65
    assert newest_steps(STEPS, L + 32, len) is None  # L + 2 + 31: not even the newest step
    assert whole(STEPS) is STEPS


def test_earlier_records_go_first_then_the_oldest_steps() -> None:
    L = len(LEFT_OUT)
    earlier, own = "Earlier: fixed the parser and its tests. " * 3, STEPS  # 123 and 191 characters
    record = earlier + "\n\n" + own
    assert newest_steps(record, 123 + 2 + 191, len) is record
    # Room for LEFT_OUT and the steps: the earlier record goes, the steps stay whole.
    assert newest_steps(record, L + 2 + 191, len) == LEFT_OUT + "\n\n" + own
    # A step line starts a cut; a line that continues a step ("  more") never does.
    steps = "- edit_file(path=\"a.py\") -> ok\n  " + "more " * 40 + "\n- bash(cmd=\"pytest\") -> failed"
    newest = LEFT_OUT + "\n\n- bash(cmd=\"pytest\") -> failed"
    assert len(steps) == 30 + 1 + 202 + 1 + 30
    assert newest_steps(steps, L + 2 + 30, len) == newest
    assert newest_steps(steps, len(steps) - 1, len) == newest  # from "  more …" it would need its step too


def test_a_long_record_is_cut_at_its_longest_fitting_run_of_steps_in_a_few_counts() -> None:
    """Hundreds of steps, some with lines that continue them: the cut is where trying each step start
    from the oldest finds it, for every size, and the text is counted a few times, not once a line."""
    lines = []
    for i in range(400):
        lines.append(f"- bash(cmd=\"step {i}\") -> ok")
        lines += ["  output line"] * (i % 3)
    steps = "\n".join(lines)
    starts = [i for i in range(1, len(lines)) if lines[i].startswith("- ")]
    calls = []

    def counted(text: str) -> int:
        calls.append(text)
        return len(text)

    for tokens in range(len(LEFT_OUT) + 2, len(steps), 997):
        fits = [i for i in starts if len(LEFT_OUT) + 2 + len("\n".join(lines[i:])) <= tokens]
        expected = LEFT_OUT + "\n\n" + "\n".join(lines[fits[0]:]) if fits else None
        calls.clear()
        assert newest_steps(steps, tokens, counted) == expected
        assert len(calls) <= 12  # the whole record, then halving over 400 step starts (was one per line)


def test_a_record_is_taken_where_a_summary_would_land_over_the_limit_too() -> None:
    history = [ModelRequest(parts=[UserPromptPart("go")])]
    # As test_records' case: hard limit 58,720, 10K fixed, a 2K summary, 2K growth per request.
    # Rebuild 49,000: with a summary, 10K + 49K = 59,000, over the limit; a 2,500-token record lands
    # at 59,500, over too, but frees a tenth of the history (70,000 - 60,000 / 10 = 64,000): taken,
    # free, rather than a summary request that helps no more.
    cm, schedule = schedule_case(rebuild=49_000)
    assert schedule.record_pays(cm, history, 2_500, tokens_before=70_000, reason="window")
    # Freeing less: 64,000 - 54,000 / 10 = 58,600, under the 59,500 it lands at.
    assert not schedule.record_pays(cm, history, 2_500, tokens_before=64_000, reason="window")
    # Where the summary would fit (rebuild 47,000: 57,000), a record over the limit is not taken.
    cm, schedule = schedule_case(rebuild=47_000)
    assert not schedule.record_pays(cm, history, 4_000, tokens_before=70_000, reason="window")  # 59,000


def steps(n: int) -> list:
    msgs: list = [ModelRequest(parts=[UserPromptPart("fix every module")])]
    for i in range(n):
        msgs.append(ModelResponse(parts=[TextPart(f"step {i}: " + "reasoning about the module " * 8),
                                         ToolCallPart("read_file", {"path": f"src/m{i}.py"}, tool_call_id=f"r{i}")]))
        msgs.append(ModelRequest(parts=[ToolReturnPart("read_file", "x" * 2_000, tool_call_id=f"r{i}")]))
    return msgs


async def test_a_record_over_the_ceiling_is_cut_to_the_summary_size_before_a_summary_is_bought() -> None:
    calls: list[str] = []

    async def model(messages, prompt):
        calls.append(prompt)
        return "<summary>Read every module.</summary>"

    msgs, compactor = steps(30), Compactor(Limits.for_window(16_000, 2_000))
    whole_record = await compactor.compact(list(msgs), summarize=model, archive=lambda: None,
                                           prefer_record=lambda size: True)
    assert whole_record.strategy == "record" and not calls and "src/m0.py" in whole_record.summary
    # Over a ceiling under it: cut to 300 tokens (1,200 characters), the newest steps kept, no model.
    ceiling = whole_record.tokens_after - 1
    cut = await Compactor(Limits.for_window(16_000, 2_000)).compact(
        list(msgs), summarize=model, archive=lambda: None, prefer_record=lambda size: True,
        ceiling=ceiling, record_cap=300)
    assert cut.strategy == "record" and not calls and cut.tokens_after <= ceiling
    assert cut.summary.startswith(LEFT_OUT) and len(cut.summary) <= 1_200
    assert "src/m0.py" not in cut.summary and whole_record.summary.endswith(cut.summary.split("\n\n", 1)[1])
    assert "fix every module" in str(cut.messages[0])  # the user's words, verbatim beside the record
    # The schedule prices the cut record again: refused, a summary is bought.
    sizes: list[int] = []
    priced = await Compactor(Limits.for_window(16_000, 2_000)).compact(
        list(msgs), summarize=model, archive=lambda: None, prefer_record=lambda size: sizes.append(size) or not sizes[1:],
        ceiling=ceiling, record_cap=300)
    assert priced.strategy == "full" and len(calls) == 1 and sizes[1] <= 300 < sizes[0]
    # Cut, still over a ceiling lower yet: before a summary was written (no `paying_cap`), a summary,
    # whose size is not known yet; once one was, the cut record stays (a summary of no more steps,
    # as long, lands over too, and the last resort brings either under), no model called.
    calls.clear()
    low = await Compactor(Limits.for_window(16_000, 2_000)).compact(
        list(msgs), summarize=model, archive=lambda: None, prefer_record=lambda size: True,
        ceiling=cut.tokens_after - 1, record_cap=300)
    assert low.strategy == "full" and len(calls) == 1
    calls.clear()
    kept = await Compactor(Limits.for_window(16_000, 2_000)).compact(
        list(msgs), summarize=model, archive=lambda: None, prefer_record=lambda size: True,
        ceiling=cut.tokens_after - 1, record_cap=300, paying_cap=300)
    assert kept.strategy == "record" and not calls
    assert kept.summary == cut.summary and kept.tokens_after == cut.tokens_after
    # A record already within the cap is not made again "cut" (the same record, the same result).
    calls.clear()
    asked: list[int] = []
    within = await Compactor(Limits.for_window(16_000, 2_000)).compact(
        list(msgs), summarize=model, archive=lambda: None, prefer_record=lambda size: asked.append(size) or True,
        ceiling=ceiling, record_cap=10_000)
    assert within.strategy == "full" and len(calls) == 1 and len(asked) == 1
    # Without a cap (a caller that does not give one): straight to the summary.
    calls.clear()
    plain = await Compactor(Limits.for_window(16_000, 2_000)).compact(
        list(msgs), summarize=model, archive=lambda: None, prefer_record=lambda size: True, ceiling=ceiling)
    assert plain.strategy == "full" and len(calls) == 1


async def test_a_window_the_system_prompt_nearly_fills_buys_no_summary_that_would_land_over_too() -> None:
    """29,000 of a 32,000-token window fixed, 200 steps of small results: compaction after
    compaction. Where a summary could not bring the request under the hard limit either, one was
    bought (4 summary requests); now the record stands in, cut to a summary's size once, and no
    request goes over the window."""
    from compact_agent.config import Settings
    from compact_agent.replay.ours import Ours
    from compact_agent.replay.simulate import replay
    from compact_agent.replay.sizing import TokenModel
    from tests.replay.synthetic import session, sim

    s = sim(32_000, TokenModel(overhead=29_000))
    ours = Ours(s, Settings())
    try:
        run = await replay(session([("fix it", [400] * 200)]), ours, s)
    finally:
        ours.close()
    made = ours.cm.compactions
    assert len(made) >= 20 and all(c.strategy == "record" for c in made)
    assert [r.kind for r in run.requests if r.kind not in ("main", "reread")] == []  # no summary bought
    assert sum(c.summary.startswith(LEFT_OUT) for c in made) >= 1
    assert run.over_window == 0
    assert all(r.users == 1.0 and r.last_request for r in run.retention)


async def test_a_record_too_long_to_pay_whole_gives_its_newest_steps_before_a_summary_is_bought() -> None:
    """The schedule refuses the whole record (too long to hold) and would take one of a summary's size:
    the record's newest steps within that size are kept, no model called. A summary was bought."""
    calls: list[str] = []

    async def model(messages, prompt):
        calls.append(prompt)
        return "<summary>Read every module.</summary>"

    msgs, asked = steps(30), []

    def prefer(size: int) -> bool:  # as Schedule.record_pays: a record no larger than a summary pays
        asked.append(size)
        return size <= 300

    made = await Compactor(Limits.for_window(16_000, 2_000)).compact(
        list(msgs), summarize=model, archive=lambda: None, prefer_record=prefer, paying_cap=300)
    assert made.strategy == "record" and not calls
    assert len(asked) == 2 and asked[0] > 300 >= asked[1]  # the whole record, then its newest steps
    assert made.summary.startswith(LEFT_OUT) and "src/m27.py" in made.summary and "src/m0.py" not in made.summary
    assert "fix every module" in str(made.messages[0])  # the user's words, verbatim beside the record
    # Without a cap (no summary measured yet: the caller gives none), or where not even the newest steps pay: the summary.
    for cap, takes in ((None, 300), (300, 10)):
        calls.clear()
        plain = await Compactor(Limits.for_window(16_000, 2_000)).compact(
            list(msgs), summarize=model, archive=lambda: None, prefer_record=lambda size, takes=takes: size <= takes,
            paying_cap=cap)
        assert plain.strategy == "full" and len(calls) == 1
