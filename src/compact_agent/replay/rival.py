"""What every rival strategy shares: the summary call, the "too long" retry, the usage it last heard.

Kept apart from the rivals themselves so each can live in its own module without importing the
registry in `baselines.py`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolReturnPart, UserPromptPart

from ..context.compaction.cuts import drop_oldest_rounds, join, user_first
from ..context.plumbing import rounds
from .retention import typed_texts
from .simulate import SideCall, Sim


def user_request(*texts: str) -> ModelRequest:
    return ModelRequest(parts=[UserPromptPart(t) for t in texts])


def as_text(part: ToolReturnPart[Any], text: str) -> ToolReturnPart[Any]:
    """The tool result showing `text` instead: cleared, masked or cut, a result is text, whatever
    its tool returned."""
    return dataclasses.replace(part, content=text)


def with_texts(m: ModelMessage, texts: Mapping[int, str]) -> ModelMessage:
    """`m` with the tool results at these part indexes showing the given texts (`as_text`); only a
    request carries tool results, so a response comes back as it is."""
    if not isinstance(m, ModelRequest):
        return m
    parts = [as_text(p, texts[j]) if j in texts and isinstance(p, ToolReturnPart) else p
             for j, p in enumerate(m.parts)]
    return dataclasses.replace(m, parts=parts)


def fit(messages: list[ModelMessage], limit: int, sim: Sim) -> list[ModelMessage]:
    """Drop the oldest rounds until the request fits `limit` (every rival retries "too long" so).
    What is left begins at a response (a round starts at one); where the request goes to a provider
    that refuses that (`user_led`), a short user message of ours goes first (`cuts.user_first`)."""
    led = user_led(sim)
    while sim.tm.request(user_first(messages) if led else messages) > limit and len(rounds.api_rounds(messages)) > 1:
        messages = drop_oldest_rounds(messages, 1)
    return user_first(messages) if led else messages


def user_led(sim: Sim) -> bool:
    """Whether a request must begin with a user message: Anthropic's API refuses one that begins with
    the model's ('first message must use the "user" role'), and a real model behind `--model` (a
    local chat template may want user and assistant in turn from the user) is sent what any provider
    takes. The stand-in at DeepSeek's prices takes either, and the rival pays for no note it needs not."""
    return sim.model is not None or sim.provider == "anthropic"


async def summarize(sim: Sim, messages: list[ModelMessage], prompt: str) -> str | None:
    """The replay's summarizer; a failed or empty reply (a real model's) is a failed compaction."""
    try:
        text = await sim.summarize(messages, prompt)
    except Exception:  # noqa: BLE001 - whatever the provider did, the history stays as it was
        return None
    return text if text and text.strip() else None


async def shared_summary(sim: Sim, history: list[ModelMessage], prompt: str) -> tuple[str | None, SideCall | None]:
    """The summary request as the conversation plus one instruction: its prefix is cached."""
    sent = fit(list(history), sim.window - sim.max_output, sim)
    text = await summarize(sim, sent, prompt)
    return text, SideCall(join(sent, [user_request(prompt)]), text, "main") if text is not None else None


def is_user_turn(m: ModelMessage, harness: frozenset[str] = frozenset()) -> bool:
    """A request carrying something a person typed (a new turn): not only tool results, nor only text
    the harness wrote in the user's role (hook context, notifications), which starts no turn."""
    return isinstance(m, ModelRequest) and bool(typed_texts([m], harness))


def last_response_index(history: list[ModelMessage]) -> int:
    """Index of the newest response in `history`, or -1."""
    return next((i for i in range(len(history) - 1, -1, -1) if isinstance(history[i], ModelResponse)), -1)


class Base:
    """Holds what the provider reported for the previous request, as every rival's trigger reads it."""

    name = "base"

    def __init__(self, sim: Sim) -> None:
        self.sim = sim
        self.harness = sim.transcript.harness_texts if sim.transcript is not None else frozenset()
        self.last_input = 0  # prompt tokens the provider reported for the previous request
        self.last_total = 0  # the same plus its output tokens

    async def observe(self, sent_tokens: int, output: int, response: ModelResponse) -> None:
        self.last_input = sent_tokens
        self.last_total = sent_tokens + output

    def forget_usage(self) -> None:
        """After a compaction the previous request's usage no longer describes the history."""
        self.last_input = self.last_total = 0

    def close(self) -> None:
        pass
