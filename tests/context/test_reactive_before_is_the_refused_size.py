"""A reactive compaction's 'before' is the size the provider named when it refused the request.
It was our estimate of the same request, scaled by a calibration that weighs earlier reports too:
'the server refused a request of 7,903 tokens', then 'compacted (reactive, …): 7,958 → 3,617'."""

from __future__ import annotations

import math

from pydantic_ai import Agent
from pydantic_ai.exceptions import ModelContextWindowExceededError
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage, UsageLimits

from compact_agent.context import CompactionEvent, ContextManager, Event, Prices

SERVER_WINDOW = 8_000


def server_tokens(messages: list[ModelMessage]) -> int:
    """The server's own count: characters/3.3, and a token for every '#' (the later logs are full
    of them), so the request refused counts more per character than those before it."""
    text = "".join(str(getattr(p, "content", "")) for m in messages for p in m.parts)
    return math.ceil(len(text) / 3.3) + text.count("#") + 40 * len(messages)


READ: list[int] = []  # the logs read so far (a compaction takes their results out of what is sent)


def server(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    size = server_tokens(messages)
    if size > SERVER_WINDOW:
        raise ModelContextWindowExceededError(400, "local", body={"error": {
            "code": "context_length_exceeded", "message": f"This model's maximum context length is {SERVER_WINDOW} "
            f"tokens. However, your messages resulted in {size} tokens. Please reduce the length of the messages."}})
    usage = RequestUsage(input_tokens=size, output_tokens=10)
    prompt = str(getattr(messages[-1].parts[-1], "content", ""))
    if "<summary>" in prompt or "summary" in prompt.lower():
        return ModelResponse(parts=[TextPart("<summary>Reading logs; some read.</summary>")], usage=usage)
    done = len(READ)
    if done >= 12:
        return ModelResponse(parts=[TextPart("read them all")], usage=usage)
    return ModelResponse(parts=[ToolCallPart("log", {"i": done}, tool_call_id=f"log-{done}")],
                         usage=usage)


async def test_the_reactive_compaction_starts_from_the_size_the_refusal_named() -> None:
    READ.clear()
    cm = ContextManager(window=64_000, prices=Prices(known=False))
    events: list[Event] = []
    cm.event_handler = events.append
    agent: Agent[None, str] = Agent(FunctionModel(server), capabilities=[cm])

    @agent.tool_plain
    def log(i: int) -> str:
        """Read log i."""
        READ.append(i)
        mark = "#" * 12 if i >= 8 else ""
        return "\n".join(f"{i}:{k} worker ok, queue depth {k * 7 % 13} {mark}" for k in range(80))

    await agent.run("read the logs", usage_limits=UsageLimits(request_limit=60))

    learned = [e for e in events if e.layer == "window" and e.action == "learned"]
    reactive = [e for e in events if isinstance(e, CompactionEvent) and e.trigger == "reactive" and not e.failed]
    assert learned and reactive, [(e.layer, e.action) for e in events]
    assert learned[0].tokens_before > SERVER_WINDOW  # the size the refusal named
    assert reactive[0].tokens_before == learned[0].tokens_before
    assert cm.compactions[0].tokens_before == learned[0].tokens_before
