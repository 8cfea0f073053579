"""The summary request has its own output cap. It repeated the main request's settings, `max_tokens`
included, so an agent limited to 200 tokens per answer got summaries cut off at 200; the cap is
what the window leaves after the summary request's input, at most what the model writes."""

from __future__ import annotations

from pydantic_ai.messages import ModelRequest, UserPromptPart

from compact_agent.context import ContextManager
from compact_agent.context.plumbing.settings import SUMMARY_INSTRUCTION_TOKENS
from tests.fakes.openai_server import ChatRequest

from .pages_agent import WINDOW, is_summary_request, reading, run_pages


def _cap(req: ChatRequest) -> int:
    return int(req.body.get("max_completion_tokens") or req.body.get("max_tokens") or 0)


async def test_an_agent_with_a_small_max_tokens_gets_summaries_with_room_to_be_written() -> None:
    run = await run_pages(reading("<summary>Pages read so far.</summary>"), model_settings={"max_tokens": 200})
    result, cm, server = run.result, run.cm, run.server
    assert result.output == "done" and cm.compactions
    summaries = run.summaries()
    assert summaries
    assert all(_cap(r) == 200 for r in server.requests if not is_summary_request(r))  # the agent's own
    # The room the pipeline planned for the summary: its output reserve (2,000 tokens at first, then
    # following the summaries' size, never below 1,024) less the instruction it holds room for,
    # within the window.
    assert _cap(summaries[0]) >= 2_000 - SUMMARY_INSTRUCTION_TOKENS
    for r in summaries:
        assert _cap(r) >= 1_024 - SUMMARY_INSTRUCTION_TOKENS and r.prompt_tokens + _cap(r) <= WINDOW
    assert server.rejected == []


async def test_a_summary_model_is_asked_for_no_more_than_its_own_settings_allow() -> None:
    """A `summary_model` that writes less than the run's model (its own `max_tokens`) was asked for
    what the window leaves, up to the run's `max_output`: a provider refuses such a request."""
    run = await run_pages(reading("<summary>Pages read so far.</summary>"), summary_settings={"max_tokens": 700})
    summaries = run.summaries()
    assert run.result.output == "done" and run.cm.compactions and summaries
    assert all(_cap(r) == 700 for r in summaries)  # the window would have left more
    assert all(_cap(r) == 0 for r in run.server.requests if not is_summary_request(r))  # the run's own: none


def test_the_cap_is_the_room_the_window_leaves_at_most_what_the_model_writes() -> None:
    request = [ModelRequest(parts=[UserPromptPart("x " * 8_000)])]  # ~4,000 tokens
    roomy = ContextManager(window=WINDOW, max_output=100_000)
    left = WINDOW - roomy.fit_size(request) - WINDOW // 50  # 2% kept for the estimate's error
    assert 3_000 < left < 5_000 and roomy.summary_output_cap(request) == left
    assert ContextManager(window=WINDOW, max_output=1_000).summary_output_cap(request) == 1_000
    over = [ModelRequest(parts=[UserPromptPart("x " * 20_000)])]
    assert ContextManager(window=WINDOW).summary_output_cap(over) == 1  # never 0 or below
