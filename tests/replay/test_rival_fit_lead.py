"""A rival's "too long" retry (rival.fit) drops its oldest rounds, and what is left begins with the
model's response. Anthropic's API refuses a request that begins so, and a real `--model` may too: there
a short user message of ours goes first. The stand-in at DeepSeek's prices takes either, and the rival
pays for no note it does not need."""

from __future__ import annotations

import dataclasses

from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from compact_agent.context.compaction.cuts import LEFT_OUT
from compact_agent.replay.rival import fit

from .synthetic import sim


def _history() -> list:
    out: list = []
    for i in range(4):
        out += [ModelRequest(parts=[UserPromptPart(f"question {i} " + "x" * 400)]),
                ModelResponse(parts=[TextPart(f"answer {i} " + "y" * 400)])]
    return out


def _fitted(**changes: object) -> list:
    s = dataclasses.replace(sim(4_000), **changes)
    history = _history()
    limit = s.tm.request(history) - 50  # the opening question must go, and that is enough
    return fit(history, limit, s)


def test_at_deepseek_prices_the_kept_rounds_are_sent_as_they_are() -> None:
    sent = _fitted()
    assert isinstance(sent[0], ModelResponse)
    assert sent[0].parts[0].content.startswith("answer 0")  # type: ignore[union-attr]
    assert len(sent) == 7


def test_to_anthropic_a_user_message_of_ours_goes_first() -> None:
    sent = _fitted(provider="anthropic")
    assert isinstance(sent[0], ModelRequest) and [p.content for p in sent[0].parts] == [LEFT_OUT]
    assert isinstance(sent[1], ModelResponse)
    assert len(sent) == 8  # the note, then the seven messages the first round's drop left


def test_to_a_real_model_a_user_message_of_ours_goes_first() -> None:
    sent = _fitted(model=object())
    assert isinstance(sent[0], ModelRequest) and [p.content for p in sent[0].parts] == [LEFT_OUT]
