"""Per-strategy figures of a replay: size, requests over the window, cache-aware cost, retention.

Cost is per request with the chosen price list (`models.PRICING`): the cached prefix is billed at
the cache-hit price, the rest at the miss price, and where the provider charges for writing the
cache (Anthropic) the uncached part is billed as a cache write. The requests a strategy makes for
itself (summaries, Gemini's verification probe, our session-notes updates) are priced the same way
and reported together as a share of the total, because a summary that does not share the
conversation's prefix pays full price for its whole input.

`cost_parts` splits the cost into the terms a strategy moves: the main requests' cache hits, misses
(cache writes included) and output, then the summary calls (probes included), the session-notes
calls, and the look-agains of the stalls (`recall.py`: a request point where the next step needed
something the strategy no longer sent), in dollars, summing to `cost`: the effective cost, which every
table ranks by. Forgetting is not free: a strategy that drops what the agent uses next pays for the
re-read here. `rebuild_miss_tokens` are the miss tokens of the first request
after each compaction — the rebuilt history paid uncached once — out of `miss_tokens` of all main
requests.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ..models import ModelInfo
from .simulate import Request, StrategyRun

COST_PARTS = ("hit", "miss", "output", "summary", "notes", "reread")


def writes_billed(price: ModelInfo) -> bool:
    """Whether the prompt cache replayed bills writing it apart, the uncached input of a request as a
    cache write at `cache_write` (Anthropic's; 0 too, where `--prices IN,CACHED,OUT,0` gives it), or
    a write is a miss at the input price (DeepSeek's, whose `cache_write` 0 is no price of its own)."""
    return price.cache_write > 0 or price.provider == "anthropic"


def request_cost(r: Request, price: ModelInfo) -> float:
    write = max(0, r.tokens - r.cached) if writes_billed(price) else 0
    return price.cost(r.tokens, r.cached, r.output, write)


def main_parts(r: Request, price: ModelInfo) -> tuple[float, float, float]:
    """(cache hits, misses or cache writes, output) of one request, in dollars; they sum to its cost."""
    miss_price = price.cache_write if writes_billed(price) else price.input
    return (r.cached * price.cache_read / 1e6, max(0, r.tokens - r.cached) * miss_price / 1e6,
            r.output * price.output / 1e6)


@dataclass
class Metrics:
    strategy: str
    transcript: str
    requests: int = 0
    peak: int = 0
    mean: float = 0.0
    over_window: int = 0
    compactions: int = 0
    failed_compactions: int = 0
    summary_calls: int = 0  # every side call: summaries, probes, notes updates
    notes_calls: int = 0
    input_tokens: int = 0
    cached_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    summary_cost: float = 0.0  # every side call: summaries, probes and notes
    cost_parts: dict[str, float] = field(default_factory=lambda: dict.fromkeys(COST_PARTS, 0.0))
    miss_tokens: int = 0  # uncached input of the main requests
    rebuild_miss_tokens: int = 0  # of which on the first request after a compaction
    freed_per_request: dict[str, float] = field(default_factory=dict)  # view layers, mean per request
    compaction_freed: int = 0
    retention_users: float | None = None
    retention_files: float | None = None
    retention_last: float | None = None
    retention_samples: int = 0
    refs_needed: int = 0  # references the next step used from earlier context (`recall.py`)
    refs_kept: int = 0
    lines_kept: int = 0  # needed references whose whole line was still in the request
    edits_needed: int = 0
    edits_kept: int = 0
    stalls: int = 0  # request points where something needed was missing
    reread_requests: int = 0  # the look-agains those stalls cost: one more round trip each

    @property
    def recall(self) -> float:
        return self.refs_kept / self.refs_needed if self.refs_needed else 1.0

    @property
    def line_recall(self) -> float:
        """Recall of the lines the references came from: names kept without what they said do not count."""
        return self.lines_kept / self.refs_needed if self.refs_needed else 1.0

    @property
    def edit_ready(self) -> float:
        return self.edits_kept / self.edits_needed if self.edits_needed else 1.0

    @property
    def summary_share(self) -> float:
        return self.summary_cost / self.cost if self.cost else 0.0

    @property
    def cache_share(self) -> float:
        return self.cached_tokens / self.input_tokens if self.input_tokens else 0.0

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["summary_share"] = round(self.summary_share, 4)
        d["cache_share"] = round(self.cache_share, 4)
        # Nothing needed from earlier context: nothing to measure (null, as the table's "–"), not 100%.
        d["recall"] = round(self.recall, 4) if self.refs_needed else None
        d["edit_ready"] = round(self.edit_ready, 4) if self.edits_needed else None
        d["line_recall"] = round(self.line_recall, 4) if self.refs_needed else None
        d["cost"] = round(self.cost, 6)
        d["summary_cost"] = round(self.summary_cost, 6)
        d["cost_parts"] = {k: round(v, 6) for k, v in self.cost_parts.items()}
        d["mean"] = round(self.mean, 1)
        d["freed_per_request"] = {k: round(v, 1) for k, v in self.freed_per_request.items()}
        for k in ("retention_users", "retention_files", "retention_last"):
            if d[k] is not None:
                d[k] = round(d[k], 4)
        return d


def measure(runs: Sequence[StrategyRun], price: ModelInfo, transcript: str | None = None) -> Metrics:
    """Figures for one strategy over one or more runs (several runs: the total row)."""
    m = Metrics(runs[0].strategy if runs else "", transcript or (runs[0].transcript if runs else ""))
    series = [t for r in runs for t in r.series]
    m.requests = len(series)
    m.peak = max(series, default=0)
    m.mean = statistics.fmean(series) if series else 0.0
    freed: dict[str, int] = {}
    retention = [x for r in runs for x in r.retention]
    for run in runs:
        m.compactions += len(run.compaction_points)
        m.failed_compactions += run.failed_compactions
        m.compaction_freed += run.compaction_freed
        m.refs_needed += run.recall.refs
        m.refs_kept += run.recall.refs_kept
        m.lines_kept += run.recall.lines_kept
        m.edits_needed += run.recall.edits
        m.edits_kept += run.recall.edits_kept
        m.stalls += run.recall.stalls
        for k, v in run.freed.items():
            freed[k] = freed.get(k, 0) + v
        for req in run.requests:
            cost = request_cost(req, price)
            m.input_tokens += req.tokens
            m.cached_tokens += req.cached
            m.output_tokens += req.output
            m.cost += cost
            if req.kind == "main":
                m.over_window += req.over_window
                for k, dollars in zip(("hit", "miss", "output"), main_parts(req, price), strict=True):
                    m.cost_parts[k] += dollars
                m.miss_tokens += req.tokens - req.cached
                m.rebuild_miss_tokens += (req.tokens - req.cached) if req.rebuild else 0
            elif req.kind == "reread":
                m.reread_requests += 1
                m.cost_parts["reread"] += cost
            else:
                m.summary_calls += 1
                m.notes_calls += req.kind == "notes"
                m.summary_cost += cost
                m.cost_parts["notes" if req.kind == "notes" else "summary"] += cost
    m.freed_per_request = {k: v / m.requests for k, v in freed.items()} if m.requests else {}
    if retention:
        m.retention_samples = len(retention)
        m.retention_users = statistics.fmean(x.users for x in retention)
        files = [x.files for x in retention if x.files is not None]
        m.retention_files = statistics.fmean(files) if files else None
        m.retention_last = statistics.fmean(1.0 if x.last_request else 0.0 for x in retention)
    return m
