"""L3 microcompact: time trigger on cache expiry, batched count trigger with hysteresis, server side."""

from __future__ import annotations

import json
from datetime import timedelta

from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart, repair_messages

from compact_agent.config import Settings
from compact_agent.context.layers.microcompact import CLEARED, Microcompact, anthropic_context_management
from compact_agent.context.plumbing.rounds import unpaired
from compact_agent.context.plumbing.tokens import estimate
from tests.context.strategies import Conv, big_text, budget_for, dump

HOUR = 3_600
#: The results the time trigger keeps, as the tests of it mean them: the default, whatever it is
#: (docs/pipeline.md), so only a test that pins a value fails when the default moves.
KEEP = Settings().microcompact_keep_recent


def counted() -> Settings:
    """The count trigger's cases are built around its numbers: 14 results of ~2K tokens are over the
    trigger's 12 live ones, and clearing all but the newest 5 frees ~18K, at least min(20K, a tenth of
    the threshold). Pinned here, so these tests hold those numbers whatever the defaults become."""
    return Settings(microcompact_keep_recent=5, microcompact_trigger=12, microcompact_min_free_tokens=20_000)


def reads(n: int, size: int = 4_000, conv: Conv | None = None) -> Conv:
    conv = conv or Conv().user("read everything")
    for i in range(n):
        conv.call("read_file", {"path": f"f{i}.py"}, big_text(f"f{i}", size))
    return conv.say("done")


def contents(messages: list) -> dict[str, object]:
    return {p.tool_call_id: p.content for m in messages if isinstance(m, ModelRequest)
            for p in m.parts if isinstance(p, ToolReturnPart)}


def run(layer: Microcompact, conv: Conv, gap_s: float = 0, threshold: int = 100_000):
    now = conv.t + timedelta(seconds=gap_s)
    result = layer.apply(conv.messages, budget_for(conv.messages, now, threshold, ttl=HOUR))
    assert dump(repair_messages(result.messages)) == dump(result.messages)
    assert unpaired(result.messages) == (set(), set())
    assert estimate(result.messages) <= estimate(conv.messages)
    return result


def test_time_trigger_clears_all_but_the_newest_after_the_cache_expired() -> None:
    conv = reads(KEEP + 3)
    before = dump(conv.messages)
    result = run(Microcompact(Settings()), conv, gap_s=HOUR + 1)
    assert dump(conv.messages) == before
    c = contents(result.messages)
    assert [i for i, v in c.items() if v == CLEARED] == conv.ids[:3]
    assert all(c[i] != CLEARED for i in conv.ids[3:])
    assert [(e.action, e.trigger, e.ids) for e in result.events] == [("clear", "time", conv.ids[:3])]
    part = result.messages[2].parts[0]
    # The mark keeps the result's own line count, which a digest of the round states (not the placeholder's one).
    assert part.metadata == {"compact_agent": {"microcompact": {"trigger": "time", "lines": 96}}}
    # The calls and their arguments stay: the model knows what it ran and can run it again.
    calls = [p for m in result.messages if isinstance(m, ModelResponse) for p in m.parts if isinstance(p, ToolCallPart)]
    assert [p.args for p in calls] == [{"path": f"f{i}.py"} for i in range(KEEP + 3)]


def test_within_the_cache_ttl_and_few_results_nothing_changes() -> None:
    conv = reads(Settings().microcompact_trigger)  # as many as the count trigger lets live, not over it
    result = run(Microcompact(Settings()), conv, gap_s=HOUR - 1)
    assert dump(result.messages) == dump(conv.messages) and not result.events


def test_count_trigger_clears_one_batch() -> None:
    conv = reads(14, size=8_000)  # 14 live > 12, clearing 9 frees ~18K tokens >= min(20K, 100K // 10)
    result = run(Microcompact(counted()), conv)
    cleared = [i for i, v in contents(result.messages).items() if v == CLEARED]
    assert cleared == conv.ids[:9]
    assert [(e.trigger, len(e.ids)) for e in result.events] == [("count", 9)]
    assert result.tokens_freed >= 10_000


def test_count_trigger_hysteresis_below_min_free_nothing_changes() -> None:
    conv = reads(14, size=400)  # many results, but clearing them would free little: not worth the cache
    result = run(Microcompact(counted()), conv)
    assert dump(result.messages) == dump(conv.messages) and not result.events


def test_no_drip_after_a_batch_then_one_more_batch() -> None:
    layer = Microcompact(counted())
    conv = reads(14, size=8_000)
    first = run(layer, conv)
    n = len(first.messages)
    conv.user("more")
    for i in range(7):  # live: 5 kept + 7 new = 12, not over the trigger
        conv.call("grep", {"pattern": f"p{i}"}, big_text(f"g{i}", 8_000))
    conv.say("done")
    second = run(layer, conv)
    assert not second.events
    assert dump(second.messages[:n]) == dump(first.messages)
    conv.user("and more").call("bash", {"command": "make"}, big_text("m", 8_000)).say("built")
    third = run(layer, conv)
    assert [(e.trigger, len(e.ids)) for e in third.events] == [("count", 8)]


def test_results_after_the_last_response_are_never_cleared() -> None:
    conv = reads(3)
    new = range(KEEP + 3)  # more than the layer keeps: none of them cleared all the same
    conv.messages.append(ModelResponse(parts=[ToolCallPart("read_file", {"path": f"n{i}"}, f"new_{i}") for i in new],
                                       timestamp=conv.tick()))
    t = conv.tick()
    conv.messages.append(ModelRequest(parts=[ToolReturnPart("read_file", big_text(f"n{i}", 4_000), f"new_{i}", timestamp=t)
                                             for i in new], timestamp=t))
    result = run(Microcompact(Settings()), conv, gap_s=2 * HOUR)
    c = contents(result.messages)
    assert all(c[f"new_{i}"] != CLEARED for i in new)
    assert [i for i, v in c.items() if v == CLEARED] == conv.ids[:3]


def test_only_compactable_tools_and_only_worthwhile_results() -> None:
    conv = Conv().user("go").call("todo", {"x": 1}, big_text("t", 5_000)).call("bash", {"command": "true"}, "ok")
    reads(KEEP + 1, conv=conv)  # with bash's, two results past the newest KEEP
    result = run(Microcompact(Settings()), conv, gap_s=2 * HOUR)
    c = contents(result.messages)
    assert c["call_1"] != CLEARED and c["call_2"] == "ok"  # not compactable / smaller than the marker
    assert [i for i, v in c.items() if v == CLEARED] == ["call_3"]


def test_decisions_are_frozen_across_requests_and_restarts() -> None:
    layer = Microcompact(Settings())
    conv = reads(KEEP + 3)
    first = run(layer, conv, gap_s=2 * HOUR)
    again = run(layer, conv, gap_s=0)  # the time trigger no longer holds; the decision still does
    assert dump(again.messages) == dump(first.messages) and not again.events
    restarted = Microcompact(Settings())
    restarted.load_state(json.loads(json.dumps(layer.state_to_json())))
    assert dump(run(restarted, conv).messages) == dump(first.messages)
    assert layer.state_to_json() == {"cleared": {i: "time" for i in conv.ids[:3]}}


def test_server_side_leaves_the_view_alone_and_builds_the_anthropic_body() -> None:
    conv = reads(14, size=8_000)
    layer = Microcompact(Settings(), server_side=True)
    result = run(layer, conv, gap_s=2 * HOUR)
    assert dump(result.messages) == dump(conv.messages) and not result.events
    assert result.messages is not conv.messages
    body = anthropic_context_management(Settings(), trigger_tokens=150_000)
    assert body == {"edits": [{
        "type": "clear_tool_uses_20250919",
        "trigger": {"type": "input_tokens", "value": 150_000},
        "keep": {"type": "tool_uses", "value": KEEP},
        "clear_at_least": {"type": "input_tokens", "value": Settings().microcompact_min_free_tokens},
    }]}


def test_min_free_scales_down_for_small_windows() -> None:
    conv = reads(14, size=1_200)  # ~300 tokens each: 9 cleared frees ~2.6K, far below 20K
    assert not run(Microcompact(counted()), conv).events
    assert run(Microcompact(counted()), conv, threshold=20_000).events  # min(20K, 2K)
