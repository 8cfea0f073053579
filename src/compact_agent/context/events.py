"""What the pipeline reports: one `Event` per layer action or compaction, and a layer's result.

Events are plain data so the session can log them as JSON lines and `/status` and the analyzer can
add them up per layer.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from pydantic_ai.messages import ModelMessage

from .economics import Prices


@dataclass
class Event:
    layer: str  # "budget" | "snip" | "microcompact" | "collapse" | "compact" | "memory" | ...
    action: str  # e.g. "spill", "clear", "commit", "full", "session_memory", "failed"
    tokens_before: int = 0
    tokens_after: int = 0
    ids: list[str] = field(default_factory=list)
    trigger: str = ""  # "auto" | "manual" | "reactive" | "time" | "count" | ...
    duration_ms: float = 0.0
    detail: dict[str, Any] = field(default_factory=dict)
    time: str = ""

    @property
    def tokens_freed(self) -> int:
        return max(0, self.tokens_before - self.tokens_after)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class LayerResult:
    """What every view layer returns: the new view, the tokens it freed and what it did."""

    messages: list[ModelMessage]
    tokens_freed: int = 0
    events: list[Event] = field(default_factory=list)


@dataclass
class Budget:
    """What a layer may know about the request it shapes.

    `tokens` is the calibrated size of the view as it reaches the layer; `now` comes from an
    injected clock so time-based decisions are testable.
    """

    window: int
    threshold: int
    tokens: int
    now: datetime
    collapse_commit: int = 0
    collapse_blocking: int = 0
    cache_ttl_s: float = 3600.0
    provider: str = "openai"
    overhead: int = 0  # system prompt and tool definitions, in the same tokens as `tokens`
    # For layers that price a rewrite (economics.py): the model's prices, the session's growth per
    # request, and the size (like `tokens`) at which the next compaction is expected. None: unpriced.
    prices: Prices | None = None
    growth: float = 0.0
    compact_at: int = 0
    ratio: float = 1.0  # provider tokens per estimated token (the pipeline's calibration)
    credit: float = 0.0  # USD per token freed, for the compactions that freeing postpones

    def requests_until_compaction(self, freed: int = 0) -> float:
        """Requests expected before the next compaction if `freed` tokens left the context now."""
        if self.growth <= 0:
            return 0.0
        return max(0.0, (self.compact_at - self.tokens + freed) / self.growth)

    @property
    def room(self) -> int:
        """Tokens the conversation itself may use under the threshold."""
        return max(0, self.threshold - self.overhead)


Clock = Callable[[], datetime]


class Stopwatch:
    def __init__(self) -> None:
        self.t0 = time.perf_counter()

    def ms(self) -> float:
        return round((time.perf_counter() - self.t0) * 1000, 3)
