"""What the compaction schedule has measured of one conversation, and how a compaction teaches it.

`Schedule` (schedule.py) decides when to compact and in what form from this state: the session's
growth per request, the size summaries have had, the share of compactions that asked a model, what
the latest compaction kept (and how much of that was records a summary would have folded), the
longest answer the model wrote, what the summary requests sent and the provider served from its
cache, and the model's prices. `after_compaction` learns from each compaction; `saved_state.py`
saves a part of it beside the history.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from ..plumbing.settings import SUMMARY_INSTRUCTION_TOKENS, Limits, estimate_margin
from .economics import CompactionPlan, Growth, Prices
from .reuse import Reuse

if TYPE_CHECKING:
    from ..compaction.result import CompactionResult

SUMMARY_PRIOR_TOKENS = 2_000
"""Expected summary size before this session has made one (the nine-section summary with its analysis
draft); after that, the mean of the summaries actually written. Never more than the window leaves a
summary (`ScheduleState.summary_size`)."""

SUMMARY_ALONE_MIN = 100
"""The least summary a compaction asks for where the output reserve holds none (`summary_alone`): a
summary request reads the whole prefix, and one leaving fewer tokens than this would be paid for a
summary that states little more than the task."""


@dataclasses.dataclass
class ScheduleState:
    """The measured state behind the compaction decisions of one conversation."""

    prices: Prices
    growth: Growth = dataclasses.field(default_factory=Growth)
    summary_tokens: int = SUMMARY_PRIOR_TOKENS
    rebuild_seen: int = 0  # history size right after the latest compaction (what one keeps)
    # Of that, the records (written without a model) its compaction message holds: records grow with
    # every compaction that keeps one, where a summary would fold them (`rebuild_floor`).
    records_seen: int = 0
    max_output_seen: int = 0
    full_summaries: int = 0
    compactions: int = 0  # made in this conversation, summaries or not
    compacted_at: int = 0  # `growth.requests` when the latest compaction was made
    last_plan: CompactionPlan | None = None
    credit: float = 0.0  # USD per token a view layer frees (the compactions it postpones)
    no_record: bool = False  # the part a compaction would replace holds more steps than a record lists
    # How far back the model keeps reaching (reuse.py); None: forgetting is not priced.
    reuse: Reuse | None = dataclasses.field(default_factory=Reuse)
    # What the summary requests sent and how much of it the provider served from its cache, counted
    # once the run's own requests showed that it reports cache reads (`summary_hits`).
    caches_reported: bool = False
    summary_sent: int = 0
    summary_cached: int = 0

    # -- what it learns -----------------------------------------------------------------------
    def after_compaction(self, result: CompactionResult, written_summary: int, kept: int, records: int = 0) -> None:
        """Learn from a compaction: the summary's size (full summaries only) and what it kept,
        and measure growth from the new, smaller history. `records`: the tokens of records (written
        without a model) its compaction message holds, which a summary would have folded."""
        self.compactions += 1
        self.compacted_at = self.growth.requests
        if result.summary and result.strategy == "full":
            self.full_summaries += 1
            self.summary_tokens = round(self.summary_tokens + (written_summary - self.summary_tokens)
                                        / self.full_summaries)
        self.learn_summary_cache(result.event.detail.get("usage"))
        self.rebuild_seen, self.records_seen = kept, records
        self.no_record = False
        self.growth.rebase(kept)
        self.last_plan = None

    def learn_summary_cache(self, usage: object) -> None:
        """Count a compaction's summary requests (`detail["usage"]`, handlers.py): their input less
        the instruction each appends, and the part of it the provider read from its cache. Only once
        the run's requests have reported a cache read: a provider that reports none tells nothing."""
        if not self.caches_reported or not isinstance(usage, dict):
            return
        sent, cached, requests = (usage.get(k) for k in ("input_tokens", "cache_read_tokens", "requests"))
        if not all(type(n) is int and n >= 0 for n in (sent, cached, requests)):
            return
        assert isinstance(sent, int) and isinstance(cached, int) and isinstance(requests, int)
        prefix = max(0, sent - requests * SUMMARY_INSTRUCTION_TOKENS)
        if prefix:
            self.summary_sent += prefix
            self.summary_cached += min(cached, prefix)

    def declined_past(self, at: int, threshold: int, fixed: int) -> int:
        """Where the view layers are told the next compaction comes, `at` the schedule's point: where one
        declined past that point (its payback too long yet, or its look-agains too dear) would pay back
        (`CompactionPlan.pays_at`), before `threshold`. Told the point already passed, no clearing or
        fold paid (0 requests to save over), and stale tool results stayed while the history grew to
        the threshold: eight turns of builds and reads, replayed at 128K, cost what sending everything
        did ($0.106, anthropic-clear's $0.085 at the same recall; now $0.067)."""
        last = self.last_plan
        if last is None or last.compact or at >= threshold:
            return at
        return int(min(threshold, max(at, last.pays_at(self.growth.rate, self.prices) + fixed)))

    def summary_size(self, limits: Limits) -> int:
        """The size a summary is expected to have in a window of `limits`: as this session's have
        been (`summary_tokens`, its prior before any), but never more than the room the output
        reserve keeps for one beside its instruction, which is what a summary request made at the
        hard limit may ask for (`Keeper.summary_room` cuts its input to leave the reserve;
        `summary_output_cap`); 0 where that leaves none (a compaction there keeps a record). The
        2,000-token prior is more than a 4,096-token window's whole room for the history: taken
        as the summary's size, it had the hard limit give up the room for the answer (answers of
        490 tokens were left 235) until a summary was written, which in a window that small a
        record written without a model may never be."""
        return max(0, min(self.summary_tokens, limits.output_reserve - SUMMARY_INSTRUCTION_TOKENS))

    def measured_summary_size(self, limits: Limits) -> int | None:
        """`summary_size` once this session has written a summary, else None. What a record that does not
        pay whole is cut to before a summary is bought (`record_cut.paying`): cut to the 2,000-token prior
        in a 4,096-token window, where the summaries written were far shorter, the record freed too little
        and a script of continued runs compacted twice a run from the sixth."""
        return self.summary_size(limits) if self.full_summaries else None

    def summary_alone(self, limits: Limits, fixed: int) -> int | None:
        """The size a summary is expected to have where the output reserve holds none beside its
        instruction (`summary_size` 0: a window under 2,800 tokens, or a model that writes less than
        the instruction's 700) and no record stands in for it (`compaction_records=False`, or the steps too many
        for one): its request is cut to fit (`cuts.summarize_fitting` leaves out the tail a
        compaction keeps, then the oldest rounds), and what the window leaves past the request's
        `fixed` part (system prompt and tools), its instruction and the estimate's margin is shared
        by what it summarises and the summary: half of it, at most the size summaries have had.
        In a 2,500-token window with 150 tokens fixed, 800 of the 1,600 left. None where that is
        under `SUMMARY_ALONE_MIN`: no summary worth its request fits beside the fixed part."""
        left = limits.window - estimate_margin(limits.window) - fixed - SUMMARY_INSTRUCTION_TOKENS
        return min(self.summary_tokens, left // 2) if left // 2 >= SUMMARY_ALONE_MIN else None

    def rebuild_floor(self, limits: Limits) -> int:
        """What a summary would have kept at the latest compaction: `rebuild_seen` less the records
        it carried beyond a summary's size in this window, which a summary would have folded."""
        return self.rebuild_seen - max(0, self.records_seen - self.summary_size(limits))

    @property
    def summary_hits(self) -> float:
        """The share of a summary request's prefix the provider serves from its cache: as measured
        over this session's summaries, else 1 (the run's model with the run's request shape shares
        the prefix the run's requests cached; another `summary_model` has a cache of its own)."""
        return self.summary_cached / self.summary_sent if self.summary_sent else 1.0

    @property
    def summary_share(self) -> float:
        """The share of compactions expected to ask a model for a summary: those made so far, with
        one more summary counted (before any, every compaction is assumed to)."""
        return (self.full_summaries + 1) / (self.compactions + 1)
