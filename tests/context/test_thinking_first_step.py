"""The last resort's thinking-first step (fit.py) leaves out only what the provider does not count.

The step was gated on any thinking the provider leaves out, the turn under way's included, and then
left out every response's thinking: where the provider counts the earlier turns' reasoning, that went
before any preview; and DeepSeek's thinking mode, which counts the turn under way's, lost the
reasoning of that turn's tool calls before any preview (its API asks for it back). Now the step runs
where the earlier turns' thinking is not counted, and leaves out the turn under way's only where that
is not counted either; step 4 leaves out the rest when the request still does not fit.
"""

from __future__ import annotations

from pathlib import Path

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.context import ContextManager
from compact_agent.context.decisions.fit import shrink_to_fit
from compact_agent.context.layers.budget import ToolResultBudget
from compact_agent.context.plumbing.events import Event
from compact_agent.context.plumbing.settings import CompactionSettings
from compact_agent.context.plumbing.thinking import ThinkingCounts

REASONING = "consider the call sites then "  # 29 characters


def view() -> list[ModelMessage]:
    """An earlier turn whose answer thought ~2,000 tokens, then the turn under way: a call that thought
    ~1,000 and a result of ~7,500."""
    return [ModelRequest(parts=[UserPromptPart("explain the parser")]),
            ModelResponse(parts=[ThinkingPart(REASONING * 276), TextPart("It reads tokens.")]),
            ModelRequest(parts=[UserPromptPart("now fix its bug")]),
            ModelResponse(parts=[ThinkingPart(REASONING * 138), ToolCallPart("read_file", {"path": "p.py"}, "c1")]),
            ModelRequest(parts=[ToolReturnPart("read_file", "x = 1\n" * 5_000, tool_call_id="c1")])]


def shrink(tmp_path: Path, counts: ThinkingCounts, provider: str = "deepseek"
           ) -> tuple[list[ModelMessage], Event]:
    cm = ContextManager(window=8_000)
    cm.provider = provider
    cm.layers = [ToolResultBudget(CompactionSettings(), tmp_path / "spill")]
    cm.calibration.thinking = counts
    events: list[Event] = []
    cm.emit = events.append  # type: ignore[method-assign,assignment]
    messages = view()
    shrunk, _ = shrink_to_fit(cm, messages, cm.fit_size(messages))
    [shrink_event] = [e for e in events if e.action == "shrink"]
    return shrunk, shrink_event


def thought(m: ModelMessage) -> bool:
    return any(isinstance(p, ThinkingPart) for p in m.parts)


def test_where_the_earlier_thinking_is_counted_the_previews_come_first(tmp_path: Path) -> None:
    # Only the turn under way's thinking is left out of the count: the earlier turns' is what the
    # provider counts, and previews go before it as they do without a verdict.
    shrunk, event = shrink(tmp_path, ThinkingCounts(earlier=True, current=False, votes=2, current_votes=2))
    assert event.detail["previews"] == 1 and event.detail["thinking_left_out"] == 0, event.detail
    assert thought(shrunk[1]) and thought(shrunk[3])


def test_the_tool_calls_of_the_turn_under_way_keep_their_thinking(tmp_path: Path) -> None:
    # DeepSeek: the earlier turns' reasoning is not counted, the turn under way's is, and its API
    # refuses a tool call of that turn sent back without it.
    shrunk, event = shrink(tmp_path, ThinkingCounts(earlier=False, current=True, votes=2, current_votes=2))
    assert event.detail["thinking_left_out"] == 1 and event.detail["previews"] == 1, event.detail
    assert not thought(shrunk[1]) and thought(shrunk[3])


def test_where_neither_is_counted_both_go_first(tmp_path: Path) -> None:
    shrunk, event = shrink(tmp_path, ThinkingCounts(earlier=False, current=False, votes=2, current_votes=2))
    assert event.detail["thinking_left_out"] == 2 and event.detail["previews"] == 0, event.detail
    assert not thought(shrunk[1]) and not thought(shrunk[3])


def test_the_turn_under_way_s_thinking_goes_when_the_request_does_not_fit_with_it(tmp_path: Path) -> None:
    # Step 4 after the first: the request over the window by the turn under way's counted thinking
    # (the older rounds leave first, as where it is counted they do).
    cm = ContextManager(window=4_000)
    cm.provider = "deepseek"
    cm.calibration.thinking = ThinkingCounts(earlier=False, current=True, votes=2, current_votes=2)
    events: list[Event] = []
    cm.emit = events.append  # type: ignore[method-assign,assignment]
    messages = [*view()[:3], ModelResponse(parts=[ThinkingPart(REASONING * 600), TextPart("Looking."),
                                                  ToolCallPart("read_file", {"path": "p.py"}, "c1")]),
                ModelRequest(parts=[ToolReturnPart("read_file", "x = 1\n", tool_call_id="c1")])]
    shrunk, after = shrink_to_fit(cm, messages, cm.fit_size(messages))
    assert after <= 4_000 and not any(thought(m) for m in shrunk)
    [event] = events  # the earlier turn's in the first step, the turn under way's in the fourth
    assert event.detail["thinking_left_out"] == 2, event.detail
