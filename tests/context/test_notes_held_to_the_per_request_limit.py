"""A run's `per_request_input_tokens_limit` holds the library's session-notes requests, as it holds its summaries.

A notes request repeats the request just sent and appends its own instruction and the previous notes,
so it is larger than any request of the agent's: a run limited to 5,500 tokens a request, whose own
requests stayed under 5,400, had notes requests of 5,700 to 7,000 tokens sent with nothing said (the
limit broken by the library, not by the caller's requests; pydantic-ai checks only its own responses).
One over the limit is now not sent, as one over the window is: a `memory` / `failed` event names the
limit, and the run goes on.
"""

from __future__ import annotations

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage, UsageLimits

from compact_agent.context import CompactionSettings, ContextManager, Event
from compact_agent.context.testing import library_request, reply_to_library_request

LIMIT = 5_500
SETTINGS = CompactionSettings(memory_enabled=True, memory_update_tokens=1, memory_update_tool_calls=1,
                              memory_start_fraction=0.0, compaction_records=False, memory_retry_s=0.001)


async def read_pages(limits: UsageLimits) -> tuple[str, list[tuple[str, int]], list[Event]]:
    """Eight pages read in an 8K window, notes after every step: (output, each request's kind and
    size as the provider counts it, the events). The provider and the tool are coroutines: sync ones run
    in threads, and which responses found a notes request still in flight (and so started none) hung on
    the threads' timing (2 runs in 200 had no notes request past the limit to hold)."""
    sent: list[tuple[str, int]] = []

    async def provider(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        size = sum(len(str(getattr(p, "content", "") or getattr(p, "args", ""))) for m in messages for p in m.parts) // 4
        sent.append((library_request(messages) or "main", size))
        usage = RequestUsage(input_tokens=size, output_tokens=20)
        if (reply := reply_to_library_request(messages, "Pages read so far. " * 40, usage=usage)) is not None:
            return reply
        step = sum(kind == "main" for kind, _ in sent)
        return ModelResponse(parts=[ToolCallPart("read", {"page": step})] if step <= 8 else [TextPart("done")],
                             usage=usage)

    events: list[Event] = []
    agent = Agent(FunctionModel(provider),
                  capabilities=[ContextManager(window=8_000, settings=SETTINGS, event_handler=events.append)])

    @agent.tool_plain
    async def read(page: int) -> str:
        """One page."""
        return f"page {page}: " + " ".join(f"line-{page}-{i}" for i in range(250))

    result = await agent.run("Read the pages.", usage_limits=limits)
    return result.output, sent, events


async def test_a_notes_request_over_the_per_request_input_limit_is_not_sent_and_the_run_goes_on() -> None:
    _, unlimited, _ = await read_pages(UsageLimits())
    assert max(n for kind, n in unlimited if kind == "main") < LIMIT < max(n for kind, n in unlimited if kind == "notes")

    output, sent, events = await read_pages(UsageLimits(per_request_input_tokens_limit=LIMIT))
    assert output == "done"
    notes = [n for kind, n in sent if kind == "notes"]
    assert notes and max(notes) <= LIMIT  # the library's own requests within the caller's limit
    assert max(notes) > LIMIT * 0.8  # those under it still sent
    failed = [str(e.detail["error"]) for e in events if e.layer == "memory" and e.action == "failed"]
    assert failed and all(f.startswith("the notes request would take ") and f.endswith(": not sent") for f in failed)
    assert all(f"past the run's per_request_input_tokens_limit of {LIMIT:,}" in f for f in failed)
