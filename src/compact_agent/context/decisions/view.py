"""What the decisions read of the `ContextManager` they decide for: a small typed view.

The schedule and the last-resort shrink are handed the manager itself (`pipeline.py`), but they
only read these few things from it; naming them here keeps a reader of `schedule.py` or `fit.py`
out of `pipeline.py`, and lets a test hand them any object that has them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from pydantic_ai.messages import ModelMessage

from ..compaction.compactor import Compactor
from ..plumbing.events import Event
from ..plumbing.settings import CompactionSettings, Limits
from ..plumbing.tokens import Calibration


class ManagerView(Protocol):
    """The schedule's inputs: the window's limits and settings, the request's fixed part, the
    calibration of estimates, the compactor (what a compaction would keep), the breaker."""

    @property
    def limits(self) -> Limits: ...
    @property
    def settings(self) -> CompactionSettings: ...
    @property
    def calibration(self) -> Calibration: ...
    @property
    def overhead(self) -> int:
        """Uncalibrated tokens of the instructions and tool definitions sent with every request."""
        ...
    @property
    def requests(self) -> int:
        """Requests prepared so far in this conversation."""
        ...
    @property
    def breaker_open(self) -> bool:
        """Too many compactions failed in a row: no automatic one is tried."""
        ...
    @property
    def compactor(self) -> Compactor: ...
    @property
    def answer_asked(self) -> int:
        """The `max_tokens` the latest request asked for (0: none), which the window holds with it."""
        ...
    @property
    def handler_instructs(self) -> bool:
        """The caller's `before_compact` has returned instructions for a compaction (which then
        needs a summary: a record cannot follow them)."""
        ...


class ShrinkView(ManagerView, Protocol):
    """What the last-resort shrink (`fit.py`) reads and does besides: the view layers (the budget
    layer shrinks first), the provider, a measurement of a view, and the event it reports."""

    @property
    def layers(self) -> Sequence[Any]: ...
    folded_calls: tuple[int, set[str]]
    """The request (its number) whose steps the last resort folded into a note, and those steps
    (each call with its result): the same steps again in the answer to it are not folded (`fit.py`)."""
    @property
    def provider(self) -> str: ...
    @property
    def reasoning_asked_back(self) -> bool:
        """The provider refuses a request whose responses with tool calls lack their reasoning (DeepSeek's
        thinking mode): the thinking of those is left out last (thinking_out.py)."""
        ...
    def measure(self, messages: Sequence[ModelMessage]) -> int: ...
    def fit_size(self, messages: Sequence[ModelMessage]) -> int:
        """The size a request is judged to fit the window by (never below the raw estimate until
        the calibration has evidence)."""
        ...
    def emit(self, event: Event) -> None: ...
