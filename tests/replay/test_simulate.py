"""The replay loop, the size calibration, the prompt-cache arithmetic, and ours on the real data."""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path

import pytest
from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.config import Settings
from compact_agent.context.plumbing import tokens
from compact_agent.replay.importers import Transcript, load_transcript
from compact_agent.replay.ours import Ours
from compact_agent.replay.simulate import (
    OVERHEAD_CAP,
    PromptCache,
    TokenModel,
    calibrate,
    replay,
    replay_messages,
)

from .synthetic import session, sim
from .test_importers import DATA, NO_DATA, REAL_FILES

# --- calibration ---------------------------------------------------------------------------------------


def test_calibration_recovers_ratio_and_overhead():
    t = session([("do it", [4_000] * 12)], usage=(1.4, 9_000))
    tm = calibrate(t)
    assert tm.ratio == pytest.approx(1.4, abs=0.01)
    assert tm.overhead == pytest.approx(9_000, abs=60)
    assert tm.error_mean is not None and tm.error_mean < 0.01


def test_no_usage_means_plain_estimate():
    tm = calibrate(session([("do it", [100, 100])]))
    assert (tm.ratio, tm.overhead) == (1.0, 0)
    assert tm.notes


def test_hidden_prompt_content_is_capped_with_a_note():
    t = session([("summarise", [])], usage=(1.0, 150_000))
    tm = calibrate(t)
    assert tm.overhead == OVERHEAD_CAP
    assert "does not hold" in tm.notes[0]


def test_recorded_summaries_are_not_replayed():
    t = session([("first", [100]), ("second", [100])])
    summary_text = "This session is being continued from a previous conversation. " * 5
    i = next(i for i, m in enumerate(t.messages) if isinstance(m, ModelRequest) and i > 0)
    t.messages[i].parts.append(UserPromptPart(summary_text))
    t.recorded_compactions.append({"message_index": i, "summary_chars": len(summary_text)})
    texts = [p.content for m in replay_messages(t) for p in m.parts if isinstance(p, UserPromptPart)]
    assert summary_text not in texts and "first" in texts


# --- the prompt cache ----------------------------------------------------------------------------------


def test_cached_prefix_is_measured_against_the_previous_request():
    tm = TokenModel(ratio=2.0, overhead=1_000)
    cache = PromptCache(tm, ttl_s=300)
    a = ModelRequest(parts=[UserPromptPart("a" * 400)])  # 100 + 4 tokens estimated
    b = ModelResponse(parts=[TextPart("b" * 800)])  # 200 + 4
    c = ModelRequest(parts=[UserPromptPart("c" * 400)])
    size, cached = cache.send([a], "main", 1_000, None)
    assert (size, cached) == (1_000 + 2 * 104, 0)  # nothing before it: all miss
    size, cached = cache.send([a, b, c], "main", 1_000, None)
    assert size == 1_000 + 2 * (104 + 204 + 104)
    assert cached == 1_000 + 2 * 104  # overhead + the first message, shared with the previous request
    # A rewritten message breaks the prefix there; an equal copy (a layer re-rendering it) does not.
    a2 = dataclasses.replace(a, parts=[dataclasses.replace(a.parts[0])])
    _, cached = cache.send([a2, b, ModelRequest(parts=[UserPromptPart("changed")])], "main", 1_000, None)
    assert cached == 1_000 + 2 * (104 + 204)
    # Another system prompt has its own cache; an expired TTL has none.
    assert cache.send([a], "summarizer", 50, None)[1] == 0


def test_a_prompt_appended_after_the_last_results_keeps_their_part_of_the_prefix():
    # A summary request is the previous request with the instruction appended to its last message:
    # providers send each result as its own message or block, so the results before it stay cached.
    tm = TokenModel(ratio=2.0, overhead=1_000)
    cache = PromptCache(tm, ttl_s=300)
    a = ModelRequest(parts=[UserPromptPart("a" * 400)])  # 104 tokens estimated
    b = ModelResponse(parts=[ToolCallPart("look", {}, tool_call_id="1")])
    r = ModelRequest(parts=[ToolReturnPart("look", "r" * 800, tool_call_id="1")])
    cache.send([a, b, r], "main", 1_000, None)
    ask = dataclasses.replace(r, parts=[*r.parts, UserPromptPart("summarise")])
    size, cached = cache.send([a, b, ask], "main", 1_000, None)
    assert cached == 1_000 + 2 * (104 + tokens.message_tokens(b) + tokens.message_tokens(r))
    assert size - cached == 2 * (tokens.message_tokens(ask) - tokens.message_tokens(r))
    # A changed part is no extension: the message is a miss from its start.
    other = ModelRequest(parts=[ToolReturnPart("look", "R" * 800, tool_call_id="1"), UserPromptPart("summarise")])
    cache.send([a, b, r], "main", 1_000, None)
    assert cache.send([a, b, other], "main", 1_000, None)[1] == 1_000 + 2 * (104 + tokens.message_tokens(b))
    # A later part changed (a result cleared after the first): the parts before it stay cached.
    r2 = ModelRequest(parts=[*r.parts, ToolReturnPart("look", "s" * 800, tool_call_id="2")])
    cleared = ModelRequest(parts=[*r.parts, ToolReturnPart("look", "[cleared]", tool_call_id="2")])
    cache.send([a, b, r2], "main", 1_000, None)
    assert cache.send([a, b, cleared], "main", 1_000, None)[1] == 1_000 + 2 * (
        104 + tokens.message_tokens(b) + tokens.message_tokens(r))


def test_cache_expires_after_the_ttl():
    from datetime import UTC, datetime, timedelta

    cache = PromptCache(TokenModel(), ttl_s=300)
    m = ModelRequest(parts=[UserPromptPart("x" * 40)])
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    cache.send([m], "main", 10, t0)
    assert cache.send([m], "main", 10, t0 + timedelta(seconds=200))[1] > 0
    assert cache.send([m], "main", 10, t0 + timedelta(seconds=800))[1] == 0


# --- the replay loop with our pipeline -------------------------------------------------------------------
def big_asks():
    """Twenty long requests (1.5K tokens each) with two results each: more than 32K in all."""
    return session([(f"request {i}: " + "keep every detail of this " * 230, [4_000, 4_000]) for i in range(20)],
                   tool="lookup")


def without_collapse(ours: Ours) -> Ours:
    """Pin L5: collapse alone would keep these sessions under the threshold (it is good at that)."""
    ours.cm.layers = [layer for layer in ours.cm.layers if layer.name != "collapse"]
    return ours




async def test_ours_runs_the_live_pipeline_once_per_recorded_request():
    t = big_asks()
    s = sim(32_000)
    ours = without_collapse(Ours(s, Settings(memory_enabled=True)))
    try:
        run = await replay(t, ours, s)
    finally:
        ours.close()
    responses = sum(isinstance(m, ModelResponse) for m in t.messages)
    assert len(run.series) == responses == ours.cm.requests
    assert run.compaction_points, "20 asks of 1.5K tokens with their results must not fit a 32K window"
    assert max(run.series) <= 32_000
    assert len(ours.cm.compactions) == len(run.compaction_points)
    summaries = [r for r in run.requests if r.kind == "summary"]
    full = [c for c in ours.cm.compactions if c.strategy == "full"]
    assert len(summaries) == len(full)
    assert any(c.strategy == "session_memory" for c in ours.cm.compactions)  # the notes served (no call)
    # Our summary and notes requests share the conversation's prefix: most of their input is a cache hit.
    side = [r for r in run.requests if r.kind != "main"]
    assert side and all(r.cached > r.tokens / 2 for r in side)
    assert run.retention and all(r.last_request for r in run.retention)


async def test_ours_calibration_learns_the_providers_ratio():
    t = session([("go", [2_000] * 10)])
    s = sim(64_000, TokenModel(ratio=1.5, overhead=3_000))
    ours = Ours(s, Settings(priced_compaction=False))  # the whole history is sent: calibration alone
    try:
        run = await replay(t, ours, s)
    finally:
        ours.close()
    assert ours.cm.calibration.ratio == pytest.approx(1.5, rel=0.01)
    view_est = tokens.estimate(replay_messages(t)[:-1]) + ours.cm.overhead
    assert ours.cm.measure(replay_messages(t)[:-1]) == pytest.approx(1.5 * view_est, rel=0.01)
    assert run.series[-1] == pytest.approx(1.5 * view_est, rel=0.01)


# --- ours on every real transcript: never over the window ------------------------------------------------
@functools.cache
def _transcript(path: Path) -> Transcript:
    return load_transcript(path)


REPLAYABLE = [p for p in REAL_FILES]
PARAMS = [pytest.param(p, id=str(p.relative_to(DATA))) for p in REPLAYABLE] or [
    pytest.param(None, marks=pytest.mark.skip(reason=NO_DATA), id="no-data")]


@pytest.mark.parametrize("path", PARAMS)
async def test_ours_never_exceeds_a_64k_window_on_real_transcripts(path: Path):
    t = _transcript(path)
    tm = calibrate(t)
    s = sim(64_000, tm, max_output=8_192)
    ours = Ours(s)
    try:
        run = await replay(t, ours, s)
    finally:
        ours.close()
    over = [(i, n) for i, n in enumerate(run.series) if n > 64_000]
    assert not over, f"requests over the window: {over[:5]}"


async def test_with_session_memory_off_ours_summarises_and_writes_no_notes():
    from compact_agent.config import Settings

    t = big_asks()
    s = sim(32_000)
    ours = without_collapse(Ours(s, Settings(memory_enabled=False)))
    try:
        run = await replay(t, ours, s)
    finally:
        ours.close()
    assert ours.memory is None
    assert not any(r.kind == "notes" for r in run.requests)
    # Without notes every compaction is a summary, or a record written without a model where that is cheaper.
    assert ours.cm.compactions and all(c.strategy in ("full", "record") for c in ours.cm.compactions)
    assert any(r.kind == "summary" for r in run.requests) == any(c.strategy == "full" for c in ours.cm.compactions)
