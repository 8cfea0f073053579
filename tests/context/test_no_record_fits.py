"""A provider whose tokenizer counts the instructions and tool definitions past what the window
leaves for even a record written without a model: no compaction can help, and the run ends in one
line naming both figures and what makes room (`NoRoomForConversation`, a provider's refusal still).

The server's refusal was answered by a compaction (its summary request longer still, then a record
no smaller), a `compact` / `failed` event, and the provider's refusal raised as it was: the agent
then said only that the request was "too long for the server's window ... and could not be shrunk"."""

from __future__ import annotations

import re

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import ModelContextWindowExceededError
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import ContextManager, Event
from compact_agent.context.plumbing import tokens
from compact_agent.context.plumbing.refusal import NoRoomForConversation

WINDOW = 4_000
RULES = "Rule: keep every answer short and exact. " * 120  # ~1,200 tokens by characters/4


def dense_server(counts: float) -> FunctionModel:
    """A model behind a server whose tokenizer counts `counts` times characters/4, refusing over WINDOW."""
    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        estimate = tokens.estimate(messages) + tokens.request_overhead(info.instructions or "", info.function_tools)
        used = int(estimate * counts)
        if used > WINDOW:
            raise ModelContextWindowExceededError(
                "dense", f"This model's maximum context length is {WINDOW} tokens. However, your messages resulted "
                         f"in {used} tokens. Please reduce the length of the messages.")
        return ModelResponse(parts=[TextPart("ok")])
    return FunctionModel(answer)


@pytest.mark.parametrize(("counts", "alone"), [(4.0, True), (3.2, False)])
async def test_a_refusal_no_record_can_answer_ends_the_run_in_one_line(counts: float, alone: bool) -> None:
    events: list[Event] = []
    cm = ContextManager(window=WINDOW, event_handler=events.append)
    agent = Agent(dense_server(counts), capabilities=[cm], instructions=RULES)
    with pytest.raises(ModelContextWindowExceededError) as caught:  # the provider's refusal, and why no compaction helps
        await agent.run("What does rule one say? " + "I mean the first rule, word for word. " * 12)
    assert isinstance(caught.value, NoRoomForConversation)
    line = str(caught.value)
    assert "\n" not in line
    fixed = int(re.search(r"([\d,]+) tokens(?: for its instructions and tool definitions alone)? \(as the provider "
                          r"counts them\)", line)[1].replace(",", ""))  # type: ignore[index]
    assert abs(fixed - tokens.request_overhead(RULES, []) * counts) < 0.02 * fixed, line
    if alone:  # more than the window itself
        assert line.startswith(f"this request needs about {fixed:,} tokens for its instructions and tool "
                               f"definitions alone (as the provider counts them), but the context window is 4,000: "
                               "send shorter instructions or fewer tools, or pass a larger window= to "
                               "ContextManager"), line
    else:  # under the window, but with no room for the least a record keeps
        assert fixed < WINDOW
        least = int(re.search(r"record of it written without a model \(([\d,]+) tokens at the least\)", line)[1]
                    .replace(",", ""))  # type: ignore[index]
        assert fixed + least > WINDOW - WINDOW // 50, line
        assert line.startswith(f"the instructions and tool definitions alone take about {fixed:,} tokens (as the "
                               "provider counts them), and the context window is 4,000: that leaves no room for the "
                               "conversation"), line
    assert not [e for e in events if e.layer == "compact"]  # no compaction tried, none said to have failed
    assert [e.action for e in events if e.layer == "window"] == ["refused"]
