"""A run's `per_request_input_tokens_limit` and the session notes: their responses checked, and notes in the background held.

A notes request is held to the limit before it is sent, by an estimate of its size; a summary's
response reporting more input than the limit allows is checked too (pydantic-ai's words, naming the
request), a notes response was not: a notes request the provider counted at 5,501 tokens under a
5,500 limit was kept, with nothing said. It is now a failed update, its `memory` / `failed` event in
pydantic-ai's words naming the notes request, and its notes are not kept.

Notes written beside the run (`notes_in_background=True`) were not held to the limit at all: counted
in no run, they read none of its limits, and 7,000-token notes requests went out under a 5,500-token
limit. They are held to it now as the notes a run waits for are (not sent past it), still counted in
no run.
"""

from __future__ import annotations

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage, UsageLimits

from compact_agent.context import CompactionSettings, ContextManager, Event
from compact_agent.context.testing import library_request, reply_to_library_request
from tests.context.scripted_model import size

LIMIT = 5_500
LIMITED = UsageLimits(per_request_input_tokens_limit=LIMIT)
SETTINGS = CompactionSettings(memory_enabled=True, memory_update_tokens=1, memory_update_tool_calls=1,
                              memory_start_fraction=0.0, compaction_records=False, memory_retry_s=0.001)


async def read_pages(limits: UsageLimits, *, background: bool, notes_counted: int | None = None, pages: int = 8,
                     ) -> tuple[str, list[tuple[str, int]], list[Event], ContextManager, int]:
    """Pages read in an 8K window, notes after every step: (output, each request's kind and size, the
    events, the manager, the run's input tokens). `notes_counted`: the input the provider reports for
    every notes request."""
    sent: list[tuple[str, int]] = []

    def provider(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        kind = library_request(messages) or "main"
        sent.append((kind, size(messages)))
        counted = notes_counted if kind == "notes" and notes_counted is not None else size(messages)
        usage = RequestUsage(input_tokens=counted, output_tokens=20)
        if (reply := reply_to_library_request(messages, "Pages read so far. " * 40, usage=usage)) is not None:
            return reply
        step = sum(k == "main" for k, _ in sent)
        return ModelResponse(parts=[ToolCallPart("read", {"page": step})] if step <= pages else [TextPart("done")],
                             usage=usage)

    events: list[Event] = []
    cm = ContextManager(window=8_000, settings=SETTINGS, event_handler=events.append, notes_in_background=background)
    agent = Agent(FunctionModel(provider), capabilities=[cm])

    @agent.tool_plain
    def read(page: int) -> str:
        """One page."""
        return f"page {page}: " + " ".join(f"line-{page}-{i}" for i in range(250))

    result = await agent.run("Read the pages.", usage_limits=limits)
    await cm.drain()
    return result.output, sent, events, cm, result.usage.input_tokens


@pytest.mark.parametrize("background", [False, True])
async def test_a_notes_response_reported_past_the_limit_is_a_failed_update_naming_it(background: bool) -> None:
    output, sent, events, cm, _ = await read_pages(LIMITED, background=background, notes_counted=LIMIT + 1, pages=3)
    assert output == "done"
    assert [k for k, n in sent if k == "notes" and n <= LIMIT * 0.98]  # each sent: within the limit by the estimate
    memory = [e for e in events if e.layer == "memory"]
    assert memory and not [e for e in memory if e.action == "update"]  # none of its notes kept
    failed = [str(e.detail["error"]) for e in memory if e.action == "failed"]
    assert failed and all(f.startswith(f"Exceeded the per_request_input_tokens_limit of {LIMIT} (request_input_"
                                       f"tokens={LIMIT + 1}): a session-notes request of the context manager's own")
                          for f in failed), failed
    assert cm.memory is not None and cm.memory.notes is None


async def test_notes_in_the_background_are_held_to_the_limit_and_counted_in_no_run() -> None:
    _, unlimited, _, _, _ = await read_pages(UsageLimits(), background=True)
    assert max(n for kind, n in unlimited if kind == "main") < LIMIT < max(n for kind, n in unlimited if kind == "notes")

    output, sent, events, _, input_tokens = await read_pages(LIMITED, background=True)
    assert output == "done"
    assert input_tokens == sum(n for kind, n in sent if kind == "main")  # the notes' tokens in no run's usage
    notes = [n for kind, n in sent if kind == "notes"]
    assert notes and max(notes) <= LIMIT  # the library's own requests within the caller's limit
    failed = [str(e.detail["error"]) for e in events if e.layer == "memory" and e.action == "failed"]
    assert failed and all(f"past the run's per_request_input_tokens_limit of {LIMIT:,}" in f for f in failed), failed
