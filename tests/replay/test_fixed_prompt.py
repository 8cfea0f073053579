"""A transcript's recorded opening system prompt (Codex's instructions and developer messages,
SWE-agent's and mini-swe-agent's system message) is the recording agent's fixed prompt: every
strategy sends it with every request, as every agent sends its own, and the prompt cache keeps it.
It was replayed as the first message, which a compaction dropped with the rest: every compacting
strategy's later requests went without it (7K tokens a request on the Codex rollouts), so the
more a strategy compacted, the more it was spared."""

from __future__ import annotations

import dataclasses

import pytest
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, SystemPromptPart
from pydantic_ai.usage import RequestUsage

from compact_agent.context.plumbing import tokens
from compact_agent.replay.simulate import Sim, Step, calibrate, fixed_prompt, replay, replay_messages

from .synthetic import session, sim

SYSTEM = "You are a coding agent. Follow the repository's rules. " * 80  # about 1,100 tokens


def with_system(usage: tuple[float, int] | None) -> tuple:
    """A session whose first request opens with SYSTEM, its recorded usage (when given) counting it."""
    t = session([("fix the bug", [400] * 10), ("and the docs", [400] * 10)])
    first = t.messages[0]
    assert isinstance(first, ModelRequest)
    t.messages[0] = dataclasses.replace(first, parts=[SystemPromptPart(SYSTEM), *first.parts])
    if usage:
        ratio, overhead = usage
        for i, m in enumerate(t.messages):
            if isinstance(m, ModelResponse):
                m.usage = RequestUsage(input_tokens=round(ratio * tokens.estimate(t.messages[:i])) + overhead,
                                       output_tokens=20)
    return t, tokens.part_tokens(SystemPromptPart(SYSTEM))


def test_the_fixed_prompt_leaves_the_messages_for_the_overhead() -> None:
    t, system = with_system((1.25, 3_000))
    messages = replay_messages(t)
    assert not any(isinstance(p, SystemPromptPart) for m in messages if isinstance(m, ModelRequest) for p in m.parts)
    assert len(messages) == len(t.messages)  # the user's prompt stays, in the same request
    tm = calibrate(t)
    assert tm.ratio == pytest.approx(1.25, abs=0.01)
    assert tm.overhead == pytest.approx(3_000 + 1.25 * system, rel=0.01)
    # Every request is sized as recorded: the prompt moved from the messages to the overhead.
    prefix: list[ModelMessage] = []
    for m, original in zip(messages, t.messages, strict=True):
        if isinstance(m, ModelResponse):
            assert tm.request(prefix) == pytest.approx(original.usage.input_tokens, rel=0.01)
        prefix.append(m)


def test_without_recorded_usage_the_fixed_prompt_is_the_overhead() -> None:
    t, system = with_system(None)
    assert calibrate(t).overhead == fixed_prompt(t.messages)[1] >= system


def test_a_message_of_system_prompts_alone_goes_whole() -> None:
    t, _ = with_system(None)
    alone = [ModelRequest(parts=[SystemPromptPart(SYSTEM)]), *t.messages]
    out, n = fixed_prompt(alone)
    assert out == t.messages and n == tokens.estimate(alone[:1])


class KeepsTheLastMessage:
    """A strategy that compacts to nothing at every point: what it sends is the newest message."""

    name = "last"

    async def step(self, history: list[ModelMessage], sim: Sim) -> Step:
        return Step(view=history[-1:], compacted=True)

    async def observe(self, sent_tokens: int, output: int, response: ModelResponse) -> None:
        return None


async def test_a_compaction_does_not_take_the_fixed_prompt_with_it() -> None:
    t, system = with_system((1.0, 500))
    tm = calibrate(t)
    run = await replay(t, KeepsTheLastMessage(), sim(8_000, tm))
    main = [r for r in run.requests if r.kind == "main"]
    assert len(main) == 22
    assert all(r.tokens >= 500 + system for r in main)  # sent with every request...
    assert all(r.cached >= 500 + system for r in main[1:])  # ...and read from the cache after the first
