"""`str(event)` is one line a person reads; `repr(event)` keeps the fields for a program.

A program that logged what the pipeline did printed the dataclass (`CompactionEvent(layer='compact',
action='full', tokens_before=34646, ... detail={...})`), and its reader had to look each layer/action
pair up in the docs."""

from __future__ import annotations

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import CompactionEvent, ContextManager, Event
from compact_agent.context.plumbing.events import MicrocompactEvent, typed
from compact_agent.context.testing import reply_to_library_request


def test_each_kind_of_event_is_one_line_of_what_happened() -> None:
    assert str(CompactionEvent("compact", "full", 34_646, 31_586, trigger="auto")) == \
        "compact full (auto): 34,646 -> 31,586 tokens, 3,060 freed"
    assert str(MicrocompactEvent("microcompact", "clear", 20_000, 20_000, trigger="priced", freed=1_200)) == \
        "microcompact clear (priced): 20,000 tokens, 1,200 freed"
    paused = CompactionEvent("compact", "failed", 12_400, 12_400, trigger="auto", detail={
        "error": "the summary request failed:\nHTTP 503", "failures": 3, "paused": True, "retry_in_s": 60})
    assert str(paused) == ("compact failed (auto): 12,400 tokens; the summary request failed: HTTP 503; "
                           "automatic compaction paused, tried again in 60 s")
    blocked = CompactionEvent("compact", "blocked", 9_000, 9_000, trigger="auto", detail={"reason": "hook said no"})
    assert str(blocked) == "compact blocked (auto): 9,000 tokens (hook said no)"
    assert str(Event("store", "replaced")) == "store replaced"
    assert repr(paused).startswith("CompactionEvent(layer='compact', action='failed', tokens_before=12400")


def test_the_events_of_a_run_that_compacts_read_as_lines() -> None:
    steps: list[int] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if (reply := reply_to_library_request(messages, "Summary: pages read.")) is not None:
            return reply
        steps.append(len(steps))
        return ModelResponse(parts=[ToolCallPart("read", {"page": len(steps)})] if len(steps) < 12
                             else [TextPart("done")])

    events: list[Event] = []
    agent = Agent(FunctionModel(model), capabilities=[ContextManager(window=6_000, event_handler=events.append)])

    @agent.tool_plain
    def read(page: int) -> str:
        """One page."""
        return f"page {page}: " + "words " * 600

    assert agent.run_sync("Read the pages.").output == "done"
    compactions = [e for e in events if isinstance(typed(e), CompactionEvent) and not e.failed]
    assert compactions, [repr(e) for e in events]
    for event in events:
        line = str(event)
        assert "\n" not in line and line.startswith(f"{event.layer} {event.action}")
    line = str(compactions[0])
    assert f"{compactions[0].tokens_before:,} -> {compactions[0].tokens_after:,} tokens" in line
