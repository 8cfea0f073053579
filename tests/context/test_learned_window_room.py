"""A window learned from a refusal carries the room the refused request asked for its answer (the
event's `room`), so its line says '(besides the room asked for its answer)' only then: the agent's
main requests ask for none, and every line said it all the same."""

from __future__ import annotations

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import ModelContextWindowExceededError
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.settings import ModelSettings
from pydantic_ai.usage import RequestUsage, UsageLimits

from compact_agent.context import ContextManager, Event, Prices

WINDOW = 6_000
READ: list[int] = []  # the pages read so far (a compaction takes their calls out of what is sent)


def size(messages: list[ModelMessage]) -> int:
    return sum(len(str(getattr(p, "content", ""))) for m in messages for p in m.parts) // 4 + 30 * len(messages)


def server(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if (n := size(messages)) > WINDOW:
        raise ModelContextWindowExceededError(400, "local", body={"error": {
            "code": "context_length_exceeded", "message": f"This model's maximum context length is {WINDOW} "
            f"tokens. However, your messages resulted in {n} tokens. Please reduce the length of the messages."}})
    usage = RequestUsage(input_tokens=n, output_tokens=10)
    if "summary" in str(getattr(messages[-1].parts[-1], "content", "")).lower():
        return ModelResponse(parts=[TextPart("<summary>Reading pages.</summary>")], usage=usage)
    done = len(READ)
    if done >= 8:
        return ModelResponse(parts=[TextPart("read them all")], usage=usage)
    return ModelResponse(parts=[ToolCallPart("page", {"i": done}, tool_call_id=f"p-{done}")], usage=usage)


@pytest.mark.parametrize("asked", [None, 512])
async def test_the_learned_window_s_event_says_the_room_the_request_asked(asked: int | None) -> None:
    READ.clear()
    cm = ContextManager(window=64_000, prices=Prices(known=False))
    events: list[Event] = []
    cm.event_handler = events.append
    agent: Agent[None, str] = Agent(FunctionModel(server), capabilities=[cm])

    @agent.tool_plain
    def page(i: int) -> str:
        """Read page i."""
        READ.append(i)
        return "\n".join(f"{i}:{k} a line of the page, long enough to count" for k in range(60))

    settings = ModelSettings(max_tokens=asked) if asked else None
    await agent.run("read the pages", model_settings=settings, usage_limits=UsageLimits(request_limit=40))

    learned = [e for e in events if e.layer == "window" and e.action == "learned"]
    assert learned and learned[0].tokens_after == WINDOW, [(e.layer, e.action) for e in events]
    assert learned[0].detail.get("room") == asked, learned[0].detail
