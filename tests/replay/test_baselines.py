"""Each rival on small synthetic transcripts behaves as its published description says.

Sizes: a tool result of `n` characters is about n/4 tokens; the token model is the plain estimate
(ratio 1, no overhead) unless a test says otherwise, so thresholds can be checked by hand.
"""

from __future__ import annotations

import json

from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from compact_agent.agent.run.summary_wording import CODING
from compact_agent.context.compaction import summary, summary_prompt
from compact_agent.replay import baselines, gemini, opencode, seed000
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
    Seed000Submit,
    factories,
)
from compact_agent.replay.importers import load_transcript
from compact_agent.replay.retention import user_texts
from compact_agent.replay.simulate import TokenModel, replay

from ._helpers import results
from .synthetic import Spy, session, sim


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
    window = 20_000  # watermark 20K - min(20K, 4K output, 5K) - min(10K, 2K) = 14K
    r, views = await run(Seed000, t, window)
    assert r.compaction_points
    first = r.compaction_points[0]
    assert max(r.series[:first]) <= 14_000  # nothing over the watermark is sent uncompacted
    after = views[first]
    assert summary.is_summary(after[0])
    # Nothing of the conversation is kept verbatim: only the summary and re-read files.
    kept = [p for p in results(after)]
    assert kept and all((p.metadata or {}).get("compact_agent", {}).get("synthetic") == "restore" for p in kept)
    assert all(n <= window for n in r.series)
    # The rebuilt history starts under the watermark (restores capped by the room left), so it does
    # not compact again at once.
    assert all(r.series[i] < 14_000 for i in r.compaction_points)
    assert all(b - a > 1 for a, b in zip(r.compaction_points, r.compaction_points[1:], strict=False))


def test_seed000_watermark_is_the_seeds_constants_scaled_like_ours():
    assert (seed000.COMPACT_OUTPUT_RESERVE, seed000.AUTO_COMPACT_BUFFER, seed000.MAX_COMPACT_FAILURES) == (
        20_000, 10_000, 3)
    assert seed000.watermark(131_072, 32_000) == 131_072 - 30_000  # the seed's own numbers, unscaled
    assert seed000.watermark(64_000, 8_192) == 64_000 - 8_192 - 6_400
    assert seed000.watermark(200_000, 8_192) == 200_000 - 8_192 - 10_000
    for window, watermark in ((128_000, 114_000), (40_000, 32_000)):
        strategy = Seed000(sim(window))  # max output 4K
        assert strategy.watermark == watermark
        strategy.close()


def test_seed000_asks_for_every_user_message_as_the_seed_does_whatever_ours_asks():
    """The seed's prompt lists every user message word for word (its section 5); ours asks for none,
    the compaction message carrying them: a change to ours must not make the rival's request shorter."""
    assert "EVERY user message" in seed000.SEED_PROMPT
    assert summary_prompt.USER_SECTION not in seed000.SEED_PROMPT
    ours = summary_prompt.compact_prompt(wording=CODING)  # the terminal agent's, as the replay of ours asks
    assert ours.replace(summary_prompt.USER_SECTION, seed000.SEED_USER_SECTION) == seed000.SEED_PROMPT


async def test_seed000_summary_is_a_separate_tool_less_request_that_shares_no_cache():
    t = session([(f"turn {i}", [4_000] * 4) for i in range(10)], usage=(1.0, 3_000))
    s = sim(30_000, tm=TokenModel(1.0, 3_000))
    strategy = Seed000(s)
    try:
        r = await replay(t, strategy, s)
    finally:
        strategy.close()
    summaries = [q for q in r.requests if q.kind == "summary"]
    assert len(summaries) == len(r.compaction_points) >= 2
    assert all(q.cached == 0 for q in summaries)  # no shared prefix with the conversation
    mains = [q for q in r.requests if q.kind == "main"]
    assert all(q.cached > 0 for q in mains[1:4])  # while the main requests do hit the cache
    # Its own agent sends no system prompt and no tools: the input is the messages alone, less
    # than the conversation's request at that point, which carries the 3K overhead.
    first = r.requests.index(summaries[0])
    assert summaries[0].tokens < r.requests[first - 1].tokens + 3_000


async def test_seed000_checks_before_every_request_on_last_usage_plus_what_came_after():
    t = session([("one long task", [4_000] * 40)])
    window = 30_000  # watermark 30K - 4K - 3K = 23K
    r, _ = await run(Seed000, t, window)
    assert r.compaction_points and r.over_window == 0
    assert max(r.series) < window
    sub, _ = await run(Seed000Submit, t, window)
    assert not sub.compaction_points  # one user message: the seed as written never checks again
    assert sub.over_window > 0


async def test_seed000_submit_compacts_before_the_users_message_and_sends_it_after():
    t = session([(f"request {i}", [4_000] * 3) for i in range(12)])
    r, views = await run(Seed000Submit, t, 20_000)  # watermark 14K
    assert r.compaction_points
    for i in r.compaction_points:
        view = views[i]
        assert summary.is_summary(view[0])
        assert user_texts(view[-1:])[0].startswith("request ")  # the new message, verbatim, last
        assert r.series[i - 1] + 20 >= 14_000  # triggered by the last reported usage


async def test_seed000_stops_after_three_failed_compactions():
    t = session([("go", [4_000] * 30)])
    s = sim(20_000)

    async def broken(messages, prompt):
        return ""

    s.summarize = broken
    strategy = Seed000(s)
    try:
        r = await replay(t, strategy, s)
    finally:
        strategy.close()
    assert r.failed_compactions == 3
    assert not r.compaction_points


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


async def test_masking_masks_a_text_format_agents_observations_as_it_masks_tool_results(tmp_path):
    """SWE-agent without tool calls: the action is in the model's text and its output a user message.
    Those outputs are the observations masking keeps ten of; the demonstration and the task stay."""
    history = [{"role": "system", "content": "You are an autonomous programmer."},
               {"role": "user", "content": "Here is a demonstration.", "is_demo": True},
               {"role": "user", "content": "Fix the failing test."}]
    for i in range(14):
        history += [{"role": "assistant", "content": f"Look again.\n```\nopen f{i}.py\n```"},
                    {"role": "user", "content": f"[File: f{i}.py]\n" + "x = 1\n" * 40}]
    history.append({"role": "assistant", "content": "Fixed."})
    path = tmp_path / "t.traj"
    path.write_text(json.dumps({"history": history, "trajectory": [], "info": {}}))
    t = load_transcript(path)
    s = sim(1_000_000)
    s.transcript = t
    spy = Spy(Masking(s))
    await replay(t, spy, s)
    texts = [p.content for m in spy.views[-1] if isinstance(m, ModelRequest) for p in m.parts
             if isinstance(p, UserPromptPart)]
    assert texts[:2] == ["Here is a demonstration.", "Fix the failing test."]
    assert texts[2:6] == ["Old environment output: (42 lines omitted)"] * 4
    assert [x.splitlines()[0] for x in texts[6:]] == [f"[File: f{i}.py]" for i in range(4, 14)]


def test_rival_constants_match_their_sources():
    assert (opencode.COMPACTION_BUFFER, opencode.PRUNE_PROTECT, opencode.PRUNE_MINIMUM,
            opencode.PRUNE_SKIP_TURNS, opencode.TOOL_OUTPUT_MAX_CHARS) == (20_000, 40_000, 20_000, 2, 2_000)
    assert opencode.usable(64_000, 8_192) == 47_616  # context - max output - min(20K, max output)
    assert opencode.usable(200_000, 32_000) == 148_000
    assert (gemini.COMPRESSION_THRESHOLD, gemini.PRESERVE_THRESHOLD, gemini.FUNCTION_RESPONSE_BUDGET,
            gemini.TRUNCATE_THRESHOLD_CHARS, gemini.MASK_PROTECT, gemini.MASK_MIN_PRUNABLE) == (
        0.5, 0.3, 50_000, 40_000, 50_000, 30_000)
    assert (baselines.CODEX_LIMIT, baselines.CODEX_USER_TOKENS, baselines.MASK_KEEP) == (0.9, 20_000, 10)


async def test_opencode_prunes_old_outputs_beyond_40k_only_when_20k_can_go_sparing_two_turns():
    # Turn 1: 30 results of ~2.5K tokens (75K). Turn 2 starts: turn 1 is one of the last two, kept.
    # Turn 3 starts: everything of turn 1 older than the newest 40K goes.
    t = session([("first", [10_000] * 30), ("second", [100] * 3), ("third", [100])])
    r, views = await run(OpenCode, t, 1_000_000)
    second = next(i for i, v in enumerate(views) if "second" in " ".join(user_texts(v)))
    third = next(i for i, v in enumerate(views) if "third" in " ".join(user_texts(v)))
    assert not any(p.content == CLEARED for p in results(views[third - 1]))
    assert not any(p.content == CLEARED for p in results(views[second]))
    after = results(views[third])
    cleared = [p for p in after if p.content == CLEARED]
    kept = [p for p in after if p.content != CLEARED]
    assert 10 <= len(cleared) <= 16
    # The newest 40K tokens of tool output are protected (the result that crosses 40K is not).
    first_turn = [p for p in kept if "x" * 1_000 in str(p.content)]
    assert 40_000 - 2_600 <= sum(len(str(p.content)) // 4 for p in first_turn) <= 40_000 + 300
    assert r.freed.get("prune", 0) > 20_000
    # Under 20K prunable: nothing changes.
    small = session([("first", [10_000] * 20), ("second", [100]), ("third", [100])])
    _, views2 = await run(OpenCode, small, 1_000_000)
    assert not any(p.content == CLEARED for p in results(views2[-1]))


async def test_opencode_summarises_at_the_usable_limit_with_a_tail():
    t = session([(f"turn {i}", [4_000] * 4) for i in range(12)])
    window = 30_000
    r, views = await run(OpenCode, t, window, max_output=4_000)
    assert r.compaction_points
    i = r.compaction_points[0]
    usable = window - 4_000 - 4_000
    assert r.series[i - 1] + 20 >= usable  # input + output of the last request
    assert max(r.series[:i]) < usable + 1_500  # and not later
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


async def test_gemini_triggers_on_the_last_prompt_tokens_not_input_plus_output():
    s = sim(40_000)
    g = Gemini(s)
    await g.observe(19_000, 5_000, ModelResponse(parts=[TextPart("x")]))
    history = session([("a", [400] * 3), ("b", [400])]).messages[:-1]
    step = await g.step(list(history), s)
    assert not step.compacted and not step.side_calls  # 19K prompt < 20K, though 24K with the output


async def test_gemini_after_an_inflated_summary_only_truncates_old_outputs():
    t = session([(f"turn {i}", [180_000]) for i in range(6)])  # ~45K tokens a result
    s = sim(80_000)  # compression at 40K

    async def bloated(messages, prompt):
        return "snapshot " * 400_000

    s.summarize = bloated
    g = Gemini(s)
    spy = Spy(g)
    r = await replay(t, spy, s)
    assert r.failed_compactions == 1 and not r.compaction_points
    summaries = [q for q in r.requests if q.kind == "summary"]
    assert len(summaries) == 1  # the snapshot was never asked for again
    assert r.freed.get("truncate", 0) > 0
    cut = [p for v in spy.views for p in results(v) if str(p.content).startswith("Output too large. Showing first 8,000")]
    assert cut and all(len(str(p.content)) < 41_000 for p in cut)
    assert len(str(results(spy.views[-1])[-1].content)) > 180_000  # the newest output is within the budget


async def test_gemini_masks_old_tool_outputs_past_50k_only_when_30k_can_go():
    t = session([("go", [40_000] * 12)])  # ~10K tokens each
    s = sim(1_000_000)  # far from compression
    g = Gemini(s)
    spy = Spy(g)
    r = await replay(t, spy, s)
    masked_at = [i for i, v in enumerate(spy.views) if any("<tool_output_masked>" in str(p.content)
                                                           for p in results(v))]
    assert masked_at
    first = masked_at[0]
    # Before: 8 results; the newest (the latest message) and 5 more within 50K are protected,
    # which left under 30K prunable.
    assert len(results(spy.views[first - 1])) < 10
    last = results(spy.views[-1])
    masked = [p for p in last if "<tool_output_masked>" in str(p.content)]
    whole = [p for p in last if "<tool_output_masked>" not in str(p.content)]
    assert len(whole) >= 5 and whole == last[-len(whole):]
    assert all(len(str(p.content)) < 700 for p in masked)
    assert r.freed.get("output-mask", 0) > 30_000


async def test_harness_text_starts_no_turn_and_is_not_kept_as_the_users():
    # OpenCode: hook context in the user's role is not a turn, so turn 1 stays within the last two.
    t = session([("first", [10_000] * 30), ("<system-reminder>hook said hi</system-reminder>", [100] * 3),
                 ("<task-notification>done</task-notification>", [100])])
    _, views = await run(OpenCode, t, 1_000_000)
    assert not any(p.content == CLEARED for p in results(views[-1]))
    # Codex keeps what a person typed, not the notifications.
    turns = [(f"request {i}: " + "please " * 300, [4_000] * 3) for i in range(12)]
    turns.insert(3, ("<task-notification>background job finished</task-notification>", [4_000] * 3))
    r, views = await run(Codex, session(turns), 40_000)
    assert r.compaction_points
    kept = user_texts(views[r.compaction_points[0]])[:-1]
    assert kept and not any("task-notification" in k for k in kept)
