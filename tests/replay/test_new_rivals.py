"""Cline's deterministic compaction and Anthropic's tool-result clearing, each rule pinned on a small
hand-made transcript (token model: the plain estimate, ratio 1, no overhead, so sizes add up by hand:
a tool result of n characters is about n/4 tokens)."""

from __future__ import annotations

import asyncio

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic_ai.messages import (
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)

from compact_agent.context.plumbing import tokens
from compact_agent.replay import cline
from compact_agent.replay.anthropic_clear import CLEARED, AnthropicClear
from compact_agent.replay.baselines import STRATEGIES, NoCompaction
from compact_agent.replay.cline import Cline, tool_activity
from compact_agent.replay.retention import user_texts
from compact_agent.replay.simulate import replay

from ._helpers import assert_valid_conversation, results
from .synthetic import Spy, session, sim


def texts(messages) -> str:
    return "\n".join(str(p.content) for m in messages for p in m.parts if hasattr(p, "content"))


async def run(cls, transcript, window):
    s = sim(window)
    strategy = cls(s)
    spy = Spy(strategy)
    return await replay(transcript, spy, s), spy.views, strategy


def test_both_are_registered():
    assert STRATEGIES["cline"] is Cline and STRATEGIES["anthropic-clear"] is AnthropicClear


# -- anthropic-clear --------------------------------------------------------------------------------
def test_anthropic_defaults_and_their_scaling_for_small_windows():
    big = AnthropicClear(sim(1_000_000))
    assert (big.trigger, big.keep, big.at_least, big.compact_at) == (100_000, 3, 5_000, 150_000)
    small = AnthropicClear(sim(64_000))
    assert (small.trigger, small.at_least, small.compact_at) == (32_000, 1_600, 48_000)


async def test_anthropic_clears_nothing_below_the_trigger_then_all_but_the_newest_three():
    t = session([("go", [4_000] * 30)])  # ~1K tokens a result; trigger min(100K, 40K/2) = 20K
    r, views, _ = await run(AnthropicClear, t, 40_000)
    first = next(i for i, v in enumerate(views) if any(p.content == CLEARED for p in results(v)))
    assert max(r.series[:first]) <= 20_000  # under the trigger nothing is touched
    before = results(views[first - 1])
    assert not any(p.content == CLEARED for p in before)
    now = results(views[first])
    whole = [p for p in now if p.content != CLEARED]
    assert [p.tool_call_id for p in whole] == [p.tool_call_id for p in now[-3:]]  # the newest three stay
    assert len(now) - 3 == sum(1 for p in now if p.content == CLEARED)  # every older one is cleared
    for v in views:
        assert_valid_conversation(v)  # calls keep their (short) results
    assert all("x" * 100 in str(p.content) for p in results(t.messages))  # the history is not edited


async def test_anthropic_clearing_is_frozen_and_comes_in_batches():
    t = session([("go", [4_000] * 70)])
    r, views, _ = await run(AnthropicClear, t, 40_000)
    cleared = [sum(1 for p in results(v) if p.content == CLEARED) for v in views]
    events = [i for i in range(1, len(views)) if cleared[i] != cleared[i - 1]]
    assert 2 <= len(events) <= 6  # a batch each time the cleared view regrows past 20K, not one a request
    assert all(cleared[i] - cleared[i - 1] >= 10 for i in events)
    for i in range(1, len(views)):
        if i in events:
            continue
        prev, now = views[i - 1], views[i]
        assert ModelMessagesTypeAdapter.dump_json(now[: len(prev)]) == ModelMessagesTypeAdapter.dump_json(prev)
    assert r.over_window == 0


async def test_anthropic_does_not_clear_when_less_than_clear_at_least_would_go():
    # Long prompts push the request past the 20K trigger, but the tool results are tiny: clearing all
    # but three would free well under clear_at_least (1K here), so nothing is cleared.
    t = session([("a" * 84_000, [40] * 12)])
    r, views, _ = await run(AnthropicClear, t, 40_000)
    assert max(r.series) > 20_000
    assert not any(p.content == CLEARED for v in views for p in results(v))


async def test_anthropic_compacts_when_clearing_cannot_bring_it_under_the_threshold():
    # Three typed messages of ~15K tokens: clearing frees nothing, the request would pass the window.
    t = session([("a" * 60_000, [400] * 2), ("b" * 60_000, [400] * 2), ("c" * 60_000, [400] * 2)])
    none, _, _ = await run(NoCompaction, t, 40_000)
    assert none.over_window > 0
    r, views, _ = await run(AnthropicClear, t, 40_000)
    assert r.compaction_points and r.over_window == 0
    assert any(q.kind == "summary" for q in r.requests)
    after = views[r.compaction_points[0]]
    assert len(after) == 1 and "[Summary of the conversation so far]" in texts(after)
    assert max(r.series) <= 30_000  # compact_at = min(150K, 3 x 40K / 4)


# -- cline -----------------------------------------------------------------------------------------
def test_cline_trigger_and_target_follow_the_source():
    c = Cline(sim(100_000))
    assert round(c.max_input) == 90_000 and round(c.trigger) == 81_000  # 0.9 of 0.9 of the window
    long = session([("go", [40] * 6)]).messages
    assert c.target(long) == 45_000  # >= 5 exchanges, output limit below input: half the usable input
    assert c.target(long[:3]) == int(81_000 * 0.7)  # a short conversation: 0.7 of the trigger
    assert (cline.COMPACTION_TRIGGER_RATIO, cline.CONTEXT_WINDOW_INPUT_RATIO, cline.DEFAULT_TARGET_RATIO,
            cline.LONG_CONVERSATION_TARGET_RATIO, cline.PRESERVED_ASSISTANT_TEXT_COUNT,
            cline.COMMAND_SUMMARY_CHAR_LIMIT) == (0.9, 0.9, 0.7, 0.5, 3, 100)


def three_tasks():
    return session([("first task: read the parser", [4_000] * 6),
                    ("<system-reminder>hook context</system-reminder>", [400]),
                    ("second task: fix the lexer", [4_000] * 6),
                    ("third task: port everything", [8_000] * 60)],
                   tool="Read", edits={2: "/src/parser.py", 8: "/src/lexer.py"})


async def test_cline_compacts_at_the_trigger_only():
    t = three_tasks()
    none, _, _ = await run(NoCompaction, t, 100_000)
    r, _, _ = await run(Cline, t, 100_000)
    first = r.compaction_points[0]
    assert first == next(i for i, n in enumerate(none.series) if n >= 81_000)
    assert max(r.series[:first]) < 81_000


async def test_cline_keeps_typed_messages_the_latest_tail_and_older_answers():
    t = three_tasks()
    r, views, _ = await run(Cline, t, 100_000)
    after = views[r.compaction_points[0]]
    assert_valid_conversation(after)
    said = user_texts(after)
    for typed in ("first task: read the parser", "second task: fix the lexer", "third task: port everything"):
        assert any(s == typed for s in said)  # every typed message, verbatim, as its own part
    assert not any(s.startswith("<system-reminder>") for s in said)  # harness text is not typed: folded away
    # Older turns keep their concluding answer (the harness message started no turn: the first turn's
    # last answer is the one after it).
    assert "finished: <system-reminder>" in texts(after) and "finished: second task" in texts(after)
    # The latest turn: its newest messages, from a response on, within the 45K target.
    assert 40_000 < r.series[r.compaction_points[0]] <= 45_000  # filled up to the target (results ~2K each)
    tail_start = next(i for i, m in enumerate(after) if isinstance(m, ModelResponse)
                      and any(isinstance(p, ToolCallPart) for p in m.parts))
    assert all(not isinstance(m, ModelRequest) or not user_texts([m]) for m in after[tail_start:])
    _, none_views, _ = await run(NoCompaction, t, 100_000)
    everything = [p.tool_call_id for p in results(none_views[r.compaction_points[0]])]
    kept_results = [p.tool_call_id for p in results(after)]
    assert kept_results == everything[-len(kept_results):]  # a suffix: the newest, none skipped
    assert len(kept_results) < 60  # the oldest of the latest turn went


async def test_cline_describes_dropped_work_files_read_and_edited():
    t = three_tasks()
    r, views, _ = await run(Cline, t, 100_000)
    after = views[r.compaction_points[0]]
    notices = [p.content for m in after if isinstance(m, ModelRequest) for p in m.parts
               if isinstance(p, UserPromptPart) and p.content.startswith(cline.NOTICE_START)]
    assert notices
    joined = "\n".join(notices)
    assert "/src/parser.py" in joined and "/src/lexer.py" in joined  # edited
    assert "/src/f0.py" in joined  # read
    edited = joined.split("Files edited:\n", 1)[1].split("\n\n", 1)[0]
    assert "/src/parser.py" in edited and "/src/f0.py" not in edited
    first = next(i for i, m in enumerate(after) if "first task" in texts([m]))
    assert "/src/parser.py" in texts([after[first]])  # on the typed message the work followed


async def test_cline_freezes_what_a_compaction_kept():
    t = session([("first", [8_000] * 40), ("second", [8_000] * 40), ("third", [8_000] * 40)])
    r, views, strategy = await run(Cline, t, 100_000)
    assert len(r.compaction_points) >= 2
    a, b = r.compaction_points[:2]
    kept_a = [m for m in views[a] if not (isinstance(m, ModelRequest) and user_texts([m]))]
    later = views[b]
    for m in kept_a:  # never folded again: the very same messages are still there
        assert any(m is n for n in later)
    again, views2, _ = await run(Cline, t, 100_000)  # deterministic
    assert ModelMessagesTypeAdapter.dump_json(views2[-1]) == ModelMessagesTypeAdapter.dump_json(views[-1])
    for v in views:
        assert_valid_conversation(v)


def test_cline_tool_activity_reads_edits_and_commands():
    msgs = [ModelResponse(parts=[
        ToolCallPart("bash", {"command": "pytest -q " + "t" * 200}, tool_call_id="a"),
        ToolCallPart("str_replace_editor", {"command": "view", "path": "/r/x.py"}, tool_call_id="b"),
        ToolCallPart("apply_patch", {"input": "*** Begin Patch\n*** Update File: /r/y.py\n@@\n-a\n+b\n"},
                     tool_call_id="c"),
        ToolCallPart("Read", {"file_path": "/r/x.py"}, tool_call_id="d"),
        TextPart("done"),
    ])]
    read, edited, commands = tool_activity(msgs)
    assert read == ["/r/x.py"] and edited == ["/r/y.py"]
    assert len(commands) == 1 and commands[0].endswith("...") and len(commands[0]) == 103


def test_cline_tool_activity_takes_a_command_given_as_words_as_one_command():
    msgs = [ModelResponse(parts=[
        ToolCallPart("local_shell", {"command": ["bash", "-lc", "sed -n 1,40p src/app.py"]}, tool_call_id="a"),
        ToolCallPart("run_commands", {"commands": ["ls", "git status"]}, tool_call_id="b"),
    ])]
    assert tool_activity(msgs)[2] == ["bash -lc sed -n 1,40p src/app.py", "ls", "git status"]


async def test_cline_skips_when_nothing_was_typed():
    t = session([("<system-reminder>only the harness spoke</system-reminder>", [8_000] * 50)])
    r, _, _ = await run(Cline, t, 100_000)
    assert not r.compaction_points and r.over_window > 0
    assert tokens.estimate(t.messages) > 100_000


# -- invariants ------------------------------------------------------------------------------------
_turns = st.lists(st.tuples(st.sampled_from(["fix it", "<system-reminder>hook</system-reminder>", "p" * 8_000]),
                            st.lists(st.sampled_from([40, 2_000, 9_000, 30_000]), max_size=12)),
                  min_size=1, max_size=5)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turns=_turns, window=st.sampled_from([8_000, 20_000, 50_000]), tool=st.sampled_from(["bash", "Read"]))
def test_every_view_is_a_valid_conversation_and_replays_identically(turns, window, tool):
    t = session(turns, tool=tool, edits={1: "/src/a.py"})
    for cls in (Cline, AnthropicClear):
        _, views, _ = asyncio.run(run(cls, t, window))
        for v in views:
            assert_valid_conversation(v)
        _, again, _ = asyncio.run(run(cls, t, window))
        assert ModelMessagesTypeAdapter.dump_json(again[-1]) == ModelMessagesTypeAdapter.dump_json(views[-1])
