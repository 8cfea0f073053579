"""The seam through which the terminal agent and the analyzer build a `ContextManager`.

A library user sets only the public options (`ContextManager(window=..., store=..., ...)`). The
terminal agent and the analyzer also wire in what a coding agent has and a library user does not:
limits of their own, their summarizer, a compactor with a restorer, the layers with side files,
session notes beside the session file, a clock, an event sink, the provider's cache lifetime, the
hooks around a compaction. They pass these as one `Internals` to `ContextManager.wired(...)`; every
field may change between versions.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from pydantic_ai.messages import ModelMessage
from pydantic_ai.models import Model

from .compaction.compactor import Compactor
from .compaction.memory import SessionMemory
from .compaction.result import CompactionResult, Summarize
from .plumbing.events import Event
from .plumbing.events import Layer as Layer  # the protocol lives beside the Budget and LayerResult it names
from .plumbing.settings import Limits

__all__ = ["Internals", "Layer", "RefitPrompt", "SummarizerFactory", "SummaryInputs", "TokenCounter", "utcnow"]


class SummaryInputs(Protocol):
    """What a summarizer factory reads of the `ContextManager` it is handed: the model that writes
    the summary now, the latest run's model, and the latest main request's parameters and settings, which the summary
    request repeats so that it shares that request's cached prefix. Named here, below the manager,
    so that what wires a manager together needs nothing from the manager's own module."""

    @property
    def last_params(self) -> Any: ...
    @property
    def last_settings(self) -> Any: ...
    @property
    def run_model(self) -> Model | None: ...  # the model of the latest run
    def summary_model_for_now(self) -> Model: ...


#: Builds the summarizer of one compaction from the manager it is handed (a `ContextManager`).
SummarizerFactory = Callable[[SummaryInputs], Summarize]
#: Called before every compaction with (trigger, instructions); returns the instructions to use
#: (awaited when it is a coroutine: an `async def`, or a plain function that returns the text), or
#: None to leave them as they were (a handler that only runs side effects).
BeforeCompact = Callable[[str, str], Awaitable[str | None] | str | None]
#: (the newest prompt's text, the compaction threshold of a window just learned from a refusal) ->
#: the text to send instead, or None to leave it (refit.py).
RefitPrompt = Callable[[str, int], str | None]
#: Counts the tokens of messages as your provider would (e.g. with its tokenizer).
TokenCounter = Callable[[Sequence[ModelMessage]], int]


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass
class Internals:
    """What the agent and the analyzer wire into a `ContextManager` besides the public options."""

    limits: Limits | None = None  # None: `Limits.for_window(window, max_output, settings)`
    summarizer: SummarizerFactory | None = None  # None: the shared-prefix summary by the run's model
    compactor: Compactor | None = None  # None: `Compactor(limits)`, without restored files
    layers: list[Layer] | None = None  # None: `default_layers`; [] for none
    memory: SessionMemory | None = None  # None: in-memory notes if `settings.memory_enabled`
    clock: Callable[[], datetime] = utcnow
    event_sink: Callable[[Event], None] | None = None  # the session's event log (before the handler)
    on_compact_start: Callable[[str, int], None] | None = None  # (trigger, tokens before): a spinner
    provider: str = "openai"
    cache_ttl_s: float = 3600.0
    save_state: Callable[[dict[str, Any]], None] | None = None  # persists frozen layer decisions
    # After every compaction (the agent's hooks; `before_compact` is a public option): sees the result.
    after_compact: Callable[[CompactionResult], Awaitable[None]] | None = None
    # A compacted history opens with the history's system prompts (contract.py); the analyzer's
    # figures are of compactions that do not carry a transcript's recorded system prompt.
    keep_system_prompts: bool = True
    # A refusal taught a smaller window: the newest prompt cut as the caller cuts input too large
    # for a request (refit.py); None: the reactive compaction takes it as it is.
    refit_prompt: RefitPrompt | None = None
    # Who answers the requests (the agent: the model and its endpoint): a window learned from a refusal
    # is saved with it, and taken back only by a conversation sent there (saved_state.py); None: not named.
    server: str | None = None
