"""Compaction where the window is tight: the record written without a model and its price, the
summary request that is the request last sent, the hard limit from what a compaction keeps, no
summary paid for a window the fixed prompt alone overflows, and collapse that never folds the
compaction's own message."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart, UserPromptPart

from compact_agent.config import Settings
from compact_agent.context import summary
from compact_agent.context.collapse import DIGEST_HEADER, ContextCollapse
from compact_agent.context.economics import Growth, Prices, record_pays, summary_cost
from compact_agent.context.markers import is_compaction_message
from compact_agent.context.schedule import Schedule
from compact_agent.context.tokens import estimate
from compact_agent.replay.ours import Ours
from compact_agent.replay.simulate import replay
from tests.context.test_collapse import budget, long_conv
from tests.replay.synthetic import session, sim

# -- the price of a record -------------------------------------------------------------------------


def test_a_record_pays_when_holding_its_extra_tokens_costs_less_than_the_summary_request():
    # Summary request: 30,000 x 0.028 + 700 x 0.28 + 1,000 x 0.42 = 840 + 196 + 420 = 1,456 (1e-6 $).
    cost = summary_cost(prefix=30_000, summary_tokens=1_000, prices=Prices())
    assert round(cost * 1e6) == 1_456
    # 500 extra tokens: sent once uncached (140) and held for 5 requests (70): 210 < 1,456.
    assert record_pays(extra=500, requests=5, summary=cost, prices=Prices())
    # 3,000 extra tokens held for 10 requests: 840 + 840 = 1,680 > 1,456.
    assert not record_pays(extra=3_000, requests=10, summary=cost, prices=Prices())
    # The compactions it brings nearer count too: 2.5 per token makes the first case 1,460.
    assert not record_pays(extra=500, requests=5, summary=cost, prices=Prices(), credit=2.5e-6)
    # A record no longer than the summary it stands in for always pays: it costs no request.
    assert record_pays(extra=0, requests=0, summary=0.0, prices=Prices())


def schedule_case(rebuild: int = 10_000, overhead: int = 10_000, **settings):
    """A pipeline stand-in: 10K of system prompt, a compaction keeping `rebuild` tokens with a 2K
    summary, 2K of growth per request, a 64K window with a 4K output reserve, DeepSeek prices."""
    cm = SimpleNamespace(
        compactor=SimpleNamespace(ratio=1.0, rebuild_estimate=lambda messages, summary, overhead: rebuild),
        calibration=SimpleNamespace(ratio=1.0, tokens=lambda n: n), overhead=overhead, requests=50,
        settings=Settings(**settings), limits=SimpleNamespace(threshold=42_000, window=64_000, output_reserve=4_000),
        breaker_open=False)
    return cm, Schedule(Prices(), growth=Growth(total=100_000, requests=50), summary_tokens=2_000)


def test_the_schedule_keeps_a_record_where_it_is_cheaper_and_asks_for_a_summary_where_not():
    history = [ModelRequest(parts=[UserPromptPart("go")])]
    cm, schedule = schedule_case()
    # Forced by the window, the next compaction comes at the hard limit, 64,000 - 4,000 - 1,280 = 58,720.
    # Summary request: 50,000 x 0.028 + 196 + 2,000 x 0.42 = 2,436. A 3,000-token record is 1,000 longer
    # than the summary: after = 10K + 10K - 2K + 3K = 21,000, held (58,720 - 21,000) / 2,000 = 18.9
    # requests: 280 + 528 = 808, plus the compactions it brings nearer (credit: K = 1,876 every
    # sqrt(2 x 2,000 x 1,932 / 0.028) = 16,613 tokens, 0.113 per token: 113): 921 < 2,436.
    assert schedule.record_pays(cm, history, 3_000, tokens_before=50_000, reason="window")
    assert round(schedule.credit * 1e9) == 113
    # A 20,000-token record: 18,000 extra tokens sent once cost 5,040 alone.
    assert not schedule.record_pays(cm, history, 20_000, tokens_before=50_000, reason="window")
    # A record that leaves no room for one request's growth, cheap or not.
    # (10K + 48K - 2K + 2K = 58,000: 720 tokens of room, under one request's 2,000.)
    cm, schedule = schedule_case(rebuild=48_000)
    assert not schedule.record_pays(cm, history, 2_000, tokens_before=60_000, reason="window")
    # Switched off: always a summary.
    cm, schedule = schedule_case(compaction_records=False)
    assert not schedule.record_pays(cm, history, 100, tokens_before=50_000, reason="window")


def test_the_hard_limit_gives_up_the_reserve_only_when_a_compaction_could_not_keep_it():
    cm, schedule = schedule_case()
    assert schedule.hard_limit(cm) == 64_000 - 4_000 - 1_280
    # The last compaction kept 47,000 tokens and a request adds 2,000: 10,000 + 49,000 >= 58,720, so
    # every compaction would be followed by another at once; only the window itself is protected.
    schedule.rebuild_seen = 47_000
    assert schedule.hard_limit(cm) == 64_000 - 1_280
    schedule.rebuild_seen = 46_000  # 58,000: the reserve can be kept
    assert schedule.hard_limit(cm) == 64_000 - 4_000 - 1_280


def test_no_summary_is_paid_for_when_the_system_prompt_alone_overflows_the_window():
    history = [ModelRequest(parts=[UserPromptPart("go")])]
    cm, schedule = schedule_case(rebuild=500)
    assert schedule.reason(cm, history, 63_000, suppressed=False) == "window"
    # 62,000 + a 2,000 summary >= 64,000: though a compaction would halve the 1,000 tokens of history.
    cm, schedule = schedule_case(rebuild=500, overhead=62_000)
    assert schedule.compaction_helps(cm, history, 1_000) and schedule.reason(cm, history, 63_000, suppressed=False) == ""


# -- the record ------------------------------------------------------------------------------------


def test_a_record_carries_the_earlier_record_then_every_step_since():
    earlier = summary.summary_message("Fixed the parser; tests pass.", None, ["fix the parser"], "full",
                                      {"src/p.py": ["edited"]}, [])
    steps = [
        earlier,
        ModelResponse(parts=[TextPart("Now the lexer."),
                             ToolCallPart("read_file", {"path": "src/lex.py"}, tool_call_id="r1")]),
        ModelRequest(parts=[ToolReturnPart("read_file", "def lex():\n    pass\n", tool_call_id="r1")]),
        ModelResponse(parts=[ToolCallPart("edit_file", {"path": "src/lex.py", "old": "pass", "new": "return []"},
                                          tool_call_id="e1")]),
        ModelRequest(parts=[ToolReturnPart("edit_file", "Edited 1 line.", tool_call_id="e1")]),
    ]
    text = summary.record_of(steps)
    assert text is not None
    assert text.startswith("Fixed the parser; tests pass.\n\n" + DIGEST_HEADER)
    assert "Assistant: Now the lexer." in text
    assert 'read_file(path="src/lex.py") -> ok (3 lines)' in text
    assert "Files changed: src/lex.py" in text
    assert "This session continues" not in text  # the earlier compaction message is not a step
    # Carried again by the next record, unchanged.
    again = summary.summary_message(text, None, ["fix the parser"], "record", {}, [])
    assert summary.record_of([again]) == text


def test_no_record_when_a_step_would_be_left_out():
    steps: list = [ModelRequest(parts=[UserPromptPart("look at everything")])]
    for i in range(150):
        steps.append(ModelResponse(parts=[ToolCallPart("read_file", {"path": f"src/module_{i}.py"},
                                                       tool_call_id=f"c{i}")]))
        steps.append(ModelRequest(parts=[ToolReturnPart("read_file", "x = 1", tool_call_id=f"c{i}")]))
    assert summary.record_of(steps) is None  # 150 steps do not fit RECORD_MAX_CHARS
    assert summary.record_of(steps[:21]) is not None  # 10 do


# -- collapse and the compaction message ----------------------------------------------------------


def test_collapse_never_folds_the_compaction_message(tmp_path: Path) -> None:
    conv = long_conv()
    head = summary.summary_message("Earlier work.", None, ["the user's own words, kept verbatim"], "full", {}, [])
    view = [head, *conv.messages[1:]]
    threshold = estimate(view)
    result = ContextCollapse(Settings(), tmp_path / "log").apply(view, budget(view, threshold))
    assert [(e.layer, e.action) for e in result.events] == [("collapse", "commit")]
    # The digest of the rounds after it may join its request; its own part is untouched.
    first = result.messages[0]
    assert first.parts[0] is head.parts[0] and is_compaction_message(first)
    assert any(p.content.startswith(DIGEST_HEADER) for p in first.parts[1:])
    assert estimate(result.messages) < threshold


# -- the summary request is the request last sent -------------------------------------------------


async def test_the_summary_request_is_the_request_last_sent_plus_the_instruction():
    # Each request adds a 6,000-character result; the compactions leave the newest results verbatim.
    t = session([("summarise the logs", [6_000] * 24)])
    s = sim(24_000)
    ours = Ours(s, Settings(compaction_records=False, collapse_enabled=False))
    try:
        run = await replay(t, ours, s)
    finally:
        ours.close()
    instruction = s.tm.text(summary.compact_prompt())
    summaries = [i for i, r in enumerate(run.requests) if r.kind == "summary"]
    assert summaries
    for i in summaries:
        sent, last = run.requests[i], run.requests[i - 1]
        assert last.kind == "main"
        # Everything but the instruction is the previous request, a cache hit; the result that arrived
        # since is not in it (the compaction keeps it verbatim).
        assert sent.cached == last.tokens
        assert sent.tokens - sent.cached <= instruction + 10
