"""A request over the hard limit only by the model's thinking leaves that thinking out instead of
compacting (shaping.py, `thinking_out.thinking_over_limit`).

An 8K session whose answers each came with 30,000 characters of reasoning (DeepSeek's
`reasoning_content`, which the server does not count when sent back) compacted "18,397 → 10,055",
then "9,790 → 1,396", where the server counted 1,232 and 1,475 tokens: after each compaction the
last resort (fit.py, step 4) left the kept tail's thinking out all the same, so the compactions lost
the history and cost a summary each for nothing, and the requests without the thinking could not
tell the calibration what the server counts of it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ThinkingPart,
    UserPromptPart,
)

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.context import ContextManager, Event
from compact_agent.context.decisions.thinking_out import (
    thinking_held_out,
    thinking_over_limit,
    thinking_still_out,
)
from compact_agent.context.plumbing import tokens
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

REASONING = "consider the file then check " * 1_035  # 30,015 characters: ~7,500 tokens of an 8,000 window
SUMMARY_MARK = "CRITICAL: Respond with TEXT ONLY"


def responder() -> Callable[[ChatRequest], Reply]:
    """The first turn: two steps and its answer, each with long reasoning; the second: a short answer."""
    steps = iter([Reply.tools([("glob", {"pattern": "*.py"})], content="Looking.", reasoning_content=REASONING)] * 2
                 + [Reply.text("Done thinking.", reasoning_content=REASONING)])

    def answer(req: ChatRequest) -> Reply:
        if SUMMARY_MARK in req.last_user_text():
            return Reply.text("<summary>1. Primary Request: think it over\n</summary>")
        if "second" in req.last_user_text():
            return Reply.text("Short.", reasoning_content="a short thought " * 20)
        return next(steps)
    return answer


async def test_long_reasoning_in_a_small_window_is_left_out_not_compacted(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    events: list[Event] = []
    with FakeOpenAIServer(responder(), window=8_000) as server:
        s = AgentSession(SessionOptions(cwd=tmp_path, model="fake-model", base_url=server.base_url, api_key="k",
                                        context_window=8_000, home=tmp_path / "home", permission_mode="yes"),
                         on_event=events.append)
        try:
            await s.run_turn("think it over")
            await s.run_turn("a second question")
            assert not s.cm.compactions, [c.event for c in s.cm.compactions]
        finally:
            s.close()
    assert not server.rejected
    sent = [r for r in server.requests if SUMMARY_MARK not in r.last_user_text()]
    assert len(sent) == 4 and len(server.requests) == 4  # no summary request either
    assert all(r.prompt_tokens < 2_000 for r in sent), [r.prompt_tokens for r in sent]
    # The first request over the hard limit by its thinking went without it, and said so; the later
    # ones too (the prompt's prefix stays as it was).
    shrinks = [e for e in events if (e.layer, e.action) == ("budget", "shrink")]
    assert [e.detail["thinking_left_out"] for e in shrinks] == [1]
    assert shrinks[0].tokens_before > 8_000 > 2_000 > shrinks[0].tokens_after
    assert not any(m.get("reasoning_content") for r in sent[1:] for m in r.messages)


def test_the_thinking_is_left_out_only_where_that_spares_a_compaction_and_until_the_view_is_small() -> None:
    """Left out where the request is over the hard limit and would then be under the threshold; not
    where it would still be over the threshold (a compaction comes all the same, and the prefix the
    thinking left would be paid uncached for nothing: the analyzer's Claude Code replays cost more);
    once left out, it stays out while the view with it would be over the threshold, so that the
    prefix does not change back and forth."""
    cm = ContextManager(window=8_000)
    hard, threshold = cm.schedule.hard_limit(cm), cm.limits.threshold
    assert threshold < hard

    def view(words: int, thinking: int) -> list[ModelMessage]:  # sizes in characters/4 tokens
        return [ModelRequest(parts=[UserPromptPart("word " * round(words * 0.8))]),
                ModelResponse(parts=[ThinkingPart("hmm " * thinking), TextPart("ok")])]

    def left_out(messages: list[ModelMessage]) -> bool:
        shaped, size, cut = thinking_over_limit(cm, messages, cm.measure(messages), hard)
        assert (shaped is messages) == (cut == 0) and size == cm.measure(shaped)
        return cut > 0

    assert left_out(view(1_000, hard))  # over the hard limit by its thinking alone
    assert not left_out(view(threshold + 100, hard - threshold))  # without it, still over the threshold
    between = view(1_000, threshold - 600)  # over the threshold, under the hard limit
    assert threshold < cm.measure(between) < hard
    assert not left_out(between)

    def still_out(messages: list[ModelMessage]) -> bool:  # left out before: the next request
        bare, cut, thinking = thinking_held_out(cm, messages)
        assert cut == 1 and not tokens.thinking_tokens(bare)
        return thinking_still_out(cm, cm.measure(bare), thinking)

    assert still_out(between)  # over the threshold with it: it stays out
    assert not still_out(view(1_000, threshold // 2))  # under the threshold again (a compaction, a rewind)


def answers_with_long_reasoning(req: ChatRequest) -> Reply:
    if SUMMARY_MARK in req.last_user_text():
        return Reply.text("<summary>1. Primary Request: the questions\n</summary>")
    return Reply.text("Answer: " + "words of the answer " * 100, reasoning_content=REASONING)


async def test_the_layers_and_the_schedule_weigh_the_requests_without_the_thinking_left_out(tmp_path: Path) -> None:
    """Every answer with 7,500 tokens of reasoning, in an 8K window: a compaction came before every
    request, and the view layers folded rounds of a view they measured at 33,420 tokens, where the
    requests sent were under 5,000. Left out, the thinking is left out before the layers shape the
    next requests too, and a compaction comes when the requests sent reach the threshold."""
    events: list[Event] = []
    with FakeOpenAIServer(answers_with_long_reasoning, window=8_000) as server:
        s = AgentSession(SessionOptions(cwd=tmp_path, model="fake-model", base_url=server.base_url, api_key="k",
                                        context_window=8_000, home=tmp_path / "home"), on_event=events.append)
        try:
            for turn in range(8):
                await s.run_turn(f"question {turn}: " + "the question text " * 60)
        finally:
            s.close()
    assert not server.rejected
    # A layer that acts weighs the requests sent (under the 8K window), never a view with the thinking.
    layers = [e for e in events if e.layer in ("collapse", "snip", "microcompact")]
    assert len(layers) <= 1 and all(e.tokens_before < 8_000 for e in layers), events
    compactions = [e for e in events if e.layer == "compact"]
    assert len(layers) + len(compactions) >= 1 and len(compactions) <= 2, compactions  # not before every request
    assert all(e.tokens_before < s.cm.schedule.hard_limit(s.cm) for e in compactions)  # the requests sent


async def test_a_resumed_session_goes_on_leaving_the_thinking_out(tmp_path: Path) -> None:
    """Each `-c -p` run is a process: the first request of each decided again, after the view layers
    had weighed the view with the thinking (and frozen what they decided on it)."""
    events: list[Event] = []
    with FakeOpenAIServer(answers_with_long_reasoning, window=8_000) as server:
        for turn in range(4):
            s = AgentSession(SessionOptions(cwd=tmp_path, model="fake-model", base_url=server.base_url, api_key="k",
                                            context_window=8_000, home=tmp_path / "home", continue_last=turn > 0),
                             on_event=events.append)
            try:
                # Decided at the second run's request (the first answer's reasoning over the hard limit),
                # then taken back with the layers' decisions.
                assert s.cm.thinking_left_out == (turn > 1)
                await s.run_turn(f"question {turn}: " + "the question text " * 60)
            finally:
                s.close()
    assert not server.rejected and all(r.prompt_tokens < 4_000 for r in server.requests)
    assert [(e.layer, e.action) for e in events if e.layer in ("budget", "collapse", "compact")] == [("budget", "shrink")]
