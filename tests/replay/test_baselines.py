"""Each rival on small synthetic transcripts behaves as its published description says.

Sizes: a tool result of `n` characters is about n/4 tokens; the token model is the plain estimate
(ratio 1, no overhead) unless a test says otherwise, so thresholds can be checked by hand.
"""

from __future__ import annotations

from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolReturnPart, UserPromptPart

from compact_agent.context import summary
from compact_agent.replay import baselines
from compact_agent.replay.baselines import (
    CLEARED,
    CODEX_PREFIX,
    GEMINI_ACK,
    Codex,
    Gemini,
    Masking,
    NoCompaction,
    OpenCode,
    Seed000,
    factories,
)
from compact_agent.replay.retention import user_texts
from compact_agent.replay.simulate import replay

from .synthetic import session, sim


def results(messages) -> list[ToolReturnPart]:
    return [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]


class Spy:
    """Wraps a strategy and keeps every view it sent."""

    def __init__(self, inner):
        self.inner, self.name, self.views = inner, inner.name, []

    async def step(self, history, s):
        step = await self.inner.step(history, s)
        self.views.append(step.view)
        return step

    async def observe(self, sent, out, response):
        await self.inner.observe(sent, out, response)


async def run(strategy_cls, transcript, window, **kw):
    s = sim(window, **kw)
    strategy = strategy_cls(s)
    spy = Spy(strategy)
    try:
        result = await replay(transcript, spy, s)
    finally:
        strategy.close()
    return result, spy.views


async def test_none_counts_requests_over_the_window():
    t = session([("go", [4_000] * 20)])  # ~1K tokens per result
    r, views = await run(NoCompaction, t, 10_000)
    assert r.over_window == sum(1 for n in r.series if n > 10_000) > 0
    assert not r.compaction_points
    assert len(results(views[-1])) == 20  # everything sent, always


async def test_seed000_summarises_everything_at_the_watermark_and_restores_reads():
    t = session([("read the code", [8_000] * 12)], tool="Read")
    window = 20_000  # watermark floored at half the window: 10K
    r, views = await run(Seed000, t, window)
    assert r.compaction_points
    first = r.compaction_points[0]
    assert max(r.series[:first]) <= 10_000  # nothing over the watermark is sent uncompacted
    after = views[first]
    assert summary.is_summary(after[0])
    # Nothing of the conversation is kept verbatim: only the summary and re-read files.
    kept = [p for p in results(after)]
    assert kept and all((p.metadata or {}).get("compact_agent", {}).get("synthetic") == "restore" for p in kept)
    assert all(n <= window for n in r.series)


async def test_seed000_watermark_is_window_minus_30k_for_large_windows():
    for window, watermark in ((128_000, 98_000), (40_000, 20_000)):
        strategy = Seed000(sim(window))
        assert strategy.watermark == watermark
        strategy.close()


async def test_codex_compacts_at_90_percent_and_keeps_user_messages_up_to_its_budget():
    turns = [(f"request {i}: " + "please " * 300, [4_000] * 3) for i in range(12)]
    t = session(turns)
    window = 40_000
    r, views = await run(Codex, t, window)
    assert r.compaction_points
    i = r.compaction_points[0]
    assert r.series[i - 1] + 20 >= 0.9 * window  # triggered by the previous request's usage
    after = views[i]
    texts = user_texts(after)
    assert texts[-1].startswith(CODEX_PREFIX)  # the summary comes last
    kept = texts[:-1]
    originals = user_texts(t.messages)
    budget = min(20_000, window // 4)
    assert sum(len(k) // 4 for k in kept) <= budget + 10
    assert kept[-1] in originals  # the newest user message, verbatim
    assert not results(after)  # tool output is gone, the summary carries it


async def test_masking_keeps_only_the_last_ten_results_and_never_rewrites_history():
    t = session([("go", [400] * 25)])
    s = sim(1_000_000)
    m = Masking(s)
    spy = Spy(m)
    await replay(t, spy, s)
    last = results(spy.views[-1])
    assert len(last) == 25
    masked = [p for p in last if str(p.content).startswith("Old environment output")]
    assert len(masked) == 15
    assert [p.tool_call_id for p in last if p not in masked] == [f"c{i}" for i in range(15, 25)]
    assert all("x" * 100 in str(p.content) for p in results(t.messages))  # the transcript is untouched


async def test_opencode_prunes_old_outputs_beyond_40k_only_when_20k_can_go():
    # Turn 1: 30 results of ~2.5K tokens (75K); turn 2 starts: everything older than the newest 40K goes.
    t = session([("first", [10_000] * 30), ("second", [100] * 3)])
    r, views = await run(OpenCode, t, 1_000_000)
    second = next(i for i, v in enumerate(views) if "second" in " ".join(user_texts(v)))
    before, after = results(views[second - 1]), results(views[second])
    assert not any(p.content == CLEARED for p in before)
    cleared = [p for p in after if p.content == CLEARED]
    kept = [p for p in after if p.content != CLEARED]
    assert 10 <= len(cleared) <= 16
    # The newest 40K tokens of tool output are protected (the result that crosses 40K is not).
    assert 40_000 - 2_600 <= sum(len(str(p.content)) // 4 for p in kept) <= 40_000 + 300
    assert r.freed.get("prune", 0) > 20_000
    # Under 20K prunable: nothing changes.
    small = session([("first", [10_000] * 20), ("second", [100])])
    _, views2 = await run(OpenCode, small, 1_000_000)
    assert not any(p.content == CLEARED for p in results(views2[-1]))


async def test_opencode_summarises_at_the_usable_limit_with_a_tail():
    t = session([(f"turn {i}", [4_000] * 4) for i in range(12)])
    window = 30_000
    r, views = await run(OpenCode, t, window, max_output=4_000)
    assert r.compaction_points
    i = r.compaction_points[0]
    assert r.series[i - 1] + 20 >= window - 4_000
    after = views[i]
    assert after[0].parts[0].content.startswith("[Summary of the earlier conversation]")
    tail_tokens = sum(len(str(p.content)) // 4 for p in results(after))
    assert 0 < tail_tokens <= 15_000
    summaries = [q for q in r.requests if q.kind == "summary"]
    assert summaries and summaries[0].cached == 0  # a separate request: no cache hit


async def test_gemini_compresses_at_half_the_window_keeping_the_newest_30_percent():
    t = session([(f"turn {i}", [4_000] * 3) for i in range(12)])
    window = 40_000
    r, views = await run(Gemini, t, window)
    assert r.compaction_points
    i = r.compaction_points[0]
    assert r.series[i - 1] + 20 >= 0.5 * window
    after = views[i]
    assert isinstance(after[1], ModelResponse) and after[1].parts[0].content == GEMINI_ACK
    assert isinstance(after[2], ModelRequest) and any(isinstance(p, UserPromptPart) for p in after[2].parts)
    kept = sum(len(str(p.content)) for p in results(after))
    total = sum(len(str(p.content)) for p in results(views[i - 1]))
    assert 0.15 * total <= kept <= 0.45 * total
    # Two calls: the snapshot, then the verification probe that shares its prefix.
    calls = [q for q in r.requests if q.kind == "summary"][:2]
    assert calls[0].cached == 0 and calls[1].cached > 0


async def test_gemini_cannot_split_a_single_prompt_tool_loop():
    t = session([("one long task", [4_000] * 30)])
    r, _ = await run(Gemini, t, 20_000)
    assert not r.compaction_points
    assert r.over_window > 0


def test_factories_keep_the_canonical_order_and_reject_unknown_names():
    assert list(factories(["gemini", "ours"])) == ["ours", "gemini"]
    assert list(factories()) == list(baselines.STRATEGIES)
    try:
        factories(["claude"])
    except ValueError as e:
        assert "claude" in str(e)
    else:
        raise AssertionError("unknown strategy accepted")


def test_a_summary_text_part_is_plain_text():
    assert TextPart("x").content == "x"
