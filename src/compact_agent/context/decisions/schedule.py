"""When to compact: before the window forces it where that is cheaper, after it where it is not.

The pipeline asks `Schedule.reason` once per request, with the view already shaped by layers 1–4:

* over the **hard limit** (the window less room for the model's answer), the request cannot be
  sent as it is: compact, if a compaction would free anything ("window");
* over the **threshold**, compact if that pays before the threshold is crossed again; in a window
  that the fixed system prompt and what a compaction keeps nearly fill, compacting at the
  threshold would repeat on every request, so the compaction waits for the hard limit
  ("threshold");
* under it, compact where the cost per request is lowest, if the session is long enough to pay
  the compaction back (`economics.plan_compaction`, "priced"); a compaction that would keep a
  record instead of a summary costs less (its own rebuild; the compaction message it appends to
  stays), so its point comes sooner, never within the thrash guard's few requests of the previous
  one. Only with the model's prices known (`Prices.known`): a local server's are not, and there an
  early compaction would forget for nothing known, nor anything but the kept tail (`priced_by`).

Both before the hard limit, the saving of a compaction is net of what it makes the model lose: the
look-agains expected because the model keeps reaching back past the tail a compaction keeps
(`reuse.py`, measured on the session's own recent responses).

It also prices the form a compaction takes: a record written without a model instead of a summary
(`record_pays`), and keeping the previous compaction message as it is (`incremental_pays`).

Its inputs are measured, not configured: the session's growth per request, the size summaries
have had, the share of compactions that asked a model, what the latest compaction kept, the
longest answer the model wrote (which sets the output reserve), and the model's prices: the
`ScheduleState` it is built on (schedule_state.py). Nothing here touches the history.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING

from pydantic_ai.messages import ModelMessage

from ..plumbing.settings import SUMMARY_INSTRUCTION_TOKENS, Limits, estimate_margin, sendable
from .asked_document import folds_asked_document
from .economics import CompactionPlan, Prices, plan_compaction, record_pays, rewrite_pays, summary_cost
from .schedule_state import ScheduleState
from .view import ManagerView

if TYPE_CHECKING:
    from ..compaction.keep import KeepPlan

MIN_RESERVE = 1_024  # the least output reserve `output_limits` keeps, however short the answers


@dataclasses.dataclass
class Schedule(ScheduleState):
    """The compaction decisions of one conversation, from the state it measured (`ScheduleState`)."""

    # -- the decision -----------------------------------------------------------------------
    def reason(self, cm: ManagerView, messages: list[ModelMessage], tokens_now: int, suppressed: bool,
               cold: bool = False) -> str:
        """"window", "threshold", "priced" or "" (no compaction) for the request of `tokens_now`;
        `cold` when the provider's cache has expired, so that it goes out uncached anyway."""
        fixed = cm.calibration.tokens(cm.overhead)
        context = tokens_now - fixed
        if cm.breaker_open or folds_asked_document(cm, messages, tokens_now, self._keeps):
            return ""
        if tokens_now > self.hard_limit(cm):
            return "window" if self.compaction_helps(cm, messages, context, fixed) else ""
        if tokens_now > cm.limits.threshold and not suppressed:
            return "threshold" if self.threshold_pays(cm, messages, context, fixed, cold) else ""
        return "priced" if self.priced(cm, messages, context, fixed, cold) else ""

    def hard_limit(self, cm: ManagerView) -> int:
        """The largest request that still leaves room for this model's answers (the adapted output
        reserve) and a 2% margin for the estimate's error. When the system prompt and tools with
        two summaries (of the size this window leaves one: `summary_size`), or with what the latest
        compaction would have kept as a summary and one request's growth, already reach it (a large
        agent prompt in a small window), no request can keep the whole reserve without compacting on
        every request: then only the window itself is protected. Records the compactions chose to
        keep do not count: a summary would fold them, so they never relax the limit (they did, and
        then grew into the room kept for the answer). The `max_tokens` a request asks for is part of
        the window even then (an OpenAI-compatible server counts it)."""
        margin = estimate_margin(cm.limits.window)
        hard = cm.limits.window - cm.limits.output_reserve - margin
        floor = cm.calibration.tokens(cm.overhead) + max(2 * self.summary_size(cm.limits),
                                                         self.rebuild_floor(cm.limits) + round(self.growth.rate))
        return int(hard if floor < hard else sendable(cm.limits.window, cm.answer_asked))

    def compaction_helps(self, cm: ManagerView, messages: list[ModelMessage], context: int, fixed: int = 0) -> bool:
        """Whether a compaction would free a tenth of the history at least: right after one, in a
        window the fixed part nearly fills, another would cost a summary and free nothing. Where the
        reserve holds no summary beside its instruction, or the fixed part with one fills the window,
        a record written without a model stands in where it can (no request); else a summary cut to
        what its own request leaves (`summary_alone`): records off, a 2,500-token window compacted
        never and dropped old rounds unsummarised, saying nothing. Either must bring the request under
        the hard limit. Where the fixed part and the summary's instruction fill the window, one is
        tried while a request fits, and fails before it is sent ("not sent", a `compact` / `failed`)."""
        if cm.compactor is None or not messages:
            return True
        room = cm.limits.output_reserve - SUMMARY_INSTRUCTION_TOKENS  # for a summary at the hard limit
        if room <= 0 or fixed + self.summary_size(cm.limits) >= cm.limits.window:
            plan = self._keeps(cm, messages)
            record = plan.record_tokens if cm.settings.compaction_records and not cm.handler_instructs else None
            if record is None and (record := self.summary_alone(cm.limits, fixed)) is None:
                left = cm.limits.window - estimate_margin(cm.limits.window) - fixed  # for the history
                return SUMMARY_INSTRUCTION_TOKENS >= left > 0
            rebuild = plan.rebuild(record)  # it must also bring the request under the limit
            return rebuild < 0.9 * context and fixed + rebuild <= self.hard_limit(cm)
        return self._rebuild(cm, messages) < 0.9 * context

    def threshold_pays(self, cm: ManagerView, messages: list[ModelMessage], context: int, fixed: int,
                       cold: bool = False) -> bool:
        """Over the threshold: compact now, or let the context grow to the hard limit first? Now,
        when holding the rebuild instead of the context, over the requests until the threshold is
        crossed again, saves more than the compaction costs with the look-agains it causes before
        the hard limit would force one anyway. With the prices not known, whether it frees enough
        to be worth the cached prefix it throws away (`frees_enough`)."""
        if cm.compactor is None or not messages:
            return True
        if not self.priced_by(cm):
            return not cm.settings.priced_compaction or self.frees_enough(cm, messages, context, fixed)
        rebuild = self._rebuild(cm, messages)
        forget = self.forget(cm, messages, fixed + rebuild)
        plan = self._plan(cm, context, rebuild, fixed, forget=forget, cold=cold)
        self.last_plan = plan
        until_next = max(1.0, (cm.limits.threshold - fixed - rebuild) / max(self.growth.rate, 1.0))
        # Waiting means compacting at the hard limit, which drops the same and more a few requests
        # later (and then keeps less than this compaction's tail and all that follows it): the
        # look-agains of those few requests are all this compaction adds.
        forced = self.until_forced(cm, fixed + context)
        held = self.prices.cost(hits=max(0, context - rebuild))
        return bool(held * until_next >= plan.fixed_cost + forget * min(forced, until_next))

    def frees_enough(self, cm: ManagerView, messages: list[ModelMessage], context: int, fixed: int) -> bool:
        """Over the threshold with the model's prices not known (a local server): whether a
        compaction now frees enough to be worth the cached prefix it throws away. Priced at the
        default prices' ratios (a cache hit a tenth of a miss: a server free per token reads again
        a prompt it has not cached, which takes time as a miss takes money) by the rule for any
        rewrite (`rewrite_pays`): the rebuilt history sent again once, less what is new since the
        previous request (sent uncached either way), against the tokens freed held on each request
        until the threshold is crossed again, and the compactions they put off (the credit per token
        freed: one compaction's cost per the growth between two at the threshold). A compaction
        that leaves the history over the threshold puts none off: it kept a 3,750-token answer
        whole and went ahead for 14 tokens of 5,591; nor one whose summary request reads more than it
        frees over those requests. Over the hard limit this is not asked (`compaction_helps`)."""
        rebuild = self._rebuild(cm, messages)
        fresh = min(self.growth.latest_step, rebuild)
        prices = Prices()
        cost = plan_compaction(context=context, rebuild=rebuild, overhead=fixed,
                               summary_tokens=self.summary_size(cm.limits),
                               growth=self.growth.rate, requests_so_far=cm.requests, prices=prices,
                               summary_share=self.summary_share, fresh=fresh).fixed_cost
        cycle = cm.limits.threshold - fixed - rebuild  # the growth between two compactions at the threshold
        requests = max(1.0, cycle / max(self.growth.rate, 1.0))
        # Freeing less than its summary request reads: a 4K window's freed 10-15%, a summary per two requests.
        if max(0, context - rebuild) * requests < min(1.0, self.summary_share) * (fixed + context):
            return False
        return rewrite_pays(tail=max(0, rebuild - fresh), removed=max(0, context - rebuild), requests=requests,
                            prices=prices, credit=cost / cycle if cycle > 0 else 0.0)

    def priced(self, cm: ManagerView, messages: list[ModelMessage], context: int, fixed: int,
               cold: bool = False) -> bool:
        """Under the threshold: whether compacting now costs less than waiting. The rebuild is
        estimated only once the context could be past the cheapest point even with nothing but a
        summary to rebuild (and no model call), which keeps the common case to a few
        multiplications."""
        if not self.priced_by(cm) or cm.compactor is None or not messages:
            return False  # unknown prices: nothing known is saved by compacting before the threshold
        if self.growth.rate <= 0 and not cold:  # no growth measured yet (a new or resumed conversation)
            return False  # and so no cheapest point; a cold request needs none (plan_compaction)
        if self.compactions and self.growth.requests - self.compacted_at <= cm.settings.thrash_requests:
            # So soon after the latest one, a compaction the window does not force is thrash (the
            # thrash guard's own measure, `compacting.thrash_level`), however few tokens it costs: each
            # archives the whole transcript and is shown to the user. A record appended after a
            # compaction message left in place costs almost nothing to send, and priced by its
            # tokens alone came on every request.
            return False
        # A record is kept only when nothing asks for instructions to a summary: a `before_compact`
        # handler may, and once it has, every compaction is priced as a summary request.
        records = cm.settings.compaction_records and not cm.handler_instructs and not self.no_record
        earliest = self._plan(cm, context, self.summary_size(cm.limits), fixed, summary_share=0.0 if records else None,
                              cold=cold)
        if context < earliest.point:
            self.last_plan = None
            return False
        rebuild = self._rebuild(cm, messages)
        forget = self.forget(cm, messages, fixed + rebuild)
        span = self.until_forced(cm, fixed + context)  # then the window compacts anyway
        self.last_plan = self._plan(cm, context, rebuild, fixed, forget=forget, forget_span=span, cold=cold)
        if self.last_plan.compact or not records:
            return self.last_plan.compact
        # Past the point of a compaction that calls no model: would this one keep a record? Then
        # it costs only the rebuild, whatever the session's earlier compactions were.
        keeps = self._keeps(cm, messages)
        size = keeps.record_tokens
        # That part only grows until the next compaction: once too long for a record, it stays so.
        self.no_record = size is None
        if size is None or not self.record_pays(cm, messages, size, tokens_before=context + fixed, reason="priced",
                                                rebuild=rebuild):
            return False
        # Priced as the compaction it would be: the record, not a summary of the summaries' size,
        # is what the rebuilt history holds (a 600-token record priced as a 2,000-token summary put
        # the cheapest point half as far again past the rebuild); the compaction message it starts
        # from stays in place, a cache hit, and only what follows it is sent again. With session
        # notes on, the compaction is to use the notes written for it in the background, which
        # stand in for a summary: it is priced at the summary's size, as the notes expect it.
        cached = 0
        if not cm.settings.memory_enabled:
            rebuild, cached = keeps.rebuild(size), keeps.kept_head
            forget = self.forget(cm, messages, fixed + rebuild)
        self.last_plan = self._plan(cm, context, rebuild, fixed, summary_share=0.0, forget=forget, forget_span=span,
                                    cold=cold, cached=cached)
        return self.last_plan.compact

    def until_forced(self, cm: ManagerView, request_tokens: int) -> float:
        """Requests until the history typically reaches the hard limit from a request of
        `request_tokens`, when the window forces a compaction whatever the schedule decides."""
        return self.growth.requests_until(self.hard_limit(cm) - request_tokens)

    def next_compaction_at(self, cm: ManagerView, view: bool = False) -> int:
        """Where (request size, overhead included) the next compaction is expected: the cheapest point for what
        the latest compaction kept before the threshold, else it; for the view layers, `declined_past`'s."""
        at, self.credit = self.expected_compaction(cm)
        return self.declined_past(at, int(cm.limits.threshold), cm.calibration.tokens(cm.overhead)) if view else at

    def expected_compaction(self, cm: ManagerView) -> tuple[int, float]:
        """`next_compaction_at` and the credit per token freed there, changing nothing (the session
        notes ask where the next compaction comes, and must not change what the layers are told)."""
        if not cm.settings.priced_compaction or self.growth.rate <= 0:
            return int(cm.limits.threshold), 0.0
        fixed = cm.calibration.tokens(cm.overhead)
        plan = self._plan(cm, 0, self.rebuild_seen or self.summary_size(cm.limits), fixed, fresh=self.growth.typical_step)
        if not math.isfinite(plan.point) or not self.prices.known:  # never early (a free cache, or no prices)
            return int(cm.limits.threshold), plan.credit_per_token
        return int(min(cm.limits.threshold, round(plan.point) + fixed)), plan.credit_per_token

    def record_pays(self, cm: ManagerView, messages: list[ModelMessage], record_tokens: int, *, tokens_before: int,
                    reason: str, rebuild: int | None = None) -> bool:
        """Whether this compaction should keep a record written without a model (`record_tokens`
        long) rather than ask for a summary: when the summary request costs more than holding the
        record's extra tokens until the next compaction, which comes at the hard limit when the
        window forced this one, else where the schedule expects it; never if that `thrashes`. Leaving
        under one request's growth, only if a summary would too. `rebuild`: its estimate, if known."""
        if not (cm.settings.priced_compaction and cm.settings.compaction_records) or cm.compactor is None:
            return False
        fixed = cm.calibration.tokens(cm.overhead)
        expected = self.next_compaction_at(cm)  # also sets `credit`
        limit = self.hard_limit(cm) if reason == "window" else expected
        growth = max(self.growth.rate, 1.0)
        with_summary = fixed + (self._rebuild(cm, messages) if rebuild is None else rebuild)
        summary = self.summary_size(cm.limits)
        requests = (limit - (after := with_summary - summary + record_tokens)) / growth
        if requests < 1.0:
            # No room left: the next request compacts again. Where a summary would leave none either
            # (a window the system prompt nearly fills), the record defers it as well, for free, if it
            # frees a tenth of the history and lands under the limit where the summary would (over,
            # the compactor cuts it to the summary's size: record_cut.py).
            if ((limit - with_summary) / growth >= 1.0 or (after > limit and with_summary <= limit)
                    or after > tokens_before - (tokens_before - fixed) / 10):
                return False
            requests = 1.0
        elif self.thrashes(cm, reason, after, with_summary):  # a summary's would not come that soon
            return False
        if summary <= 0:  # the reserve holds no summary beside its instruction: a record is all there is
            return True
        if not self.prices.known:  # no fewer tokens than the summary and no request: cheaper at any prices
            return record_tokens <= summary
        cost = summary_cost(prefix=tokens_before, summary_tokens=summary, prices=self.prices,
                            hits=self.summary_hits)
        return record_pays(extra=record_tokens - summary, requests=requests, summary=cost,
                           prices=self.prices, credit=self.credit)

    def incremental_pays(self, cm: ManagerView, messages: list[ModelMessage], kept: int, carried: int, *,
                         reason: str) -> bool:
        """Whether to keep the compaction message the history starts with (`kept` tokens) and
        append the record of what came after it, rather than fold it all into one new message.
        Kept, it is a cache hit, where a new message would send again at the miss price what it
        carries on (`carried`: the user's messages and the ledger); but the rest of it (records,
        framing), which a new summary would fold, stays in every request until the next
        compaction, and brings that compaction nearer."""
        if not cm.settings.priced_compaction or cm.compactor is None:
            return False
        fixed = cm.calibration.tokens(cm.overhead)
        expected = self.next_compaction_at(cm)  # also sets `credit`
        limit = self.hard_limit(cm) if reason == "window" else expected
        folded = max(0, kept - carried)
        after = fixed + self._rebuild(cm, messages) + folded
        requests = (limit - after) / max(self.growth.rate, 1.0)
        if requests < 1.0 or self.thrashes(cm, reason, after, after - folded):
            return False  # keeping it leaves no room: the next requests would compact again
        if not self.prices.known:  # it holds nothing a new message would not: cheaper at any prices
            return folded == 0
        saving = self.prices.cost(resent=min(carried, kept)) - self.prices.cost(hits=kept)
        return saving > self.prices.cost(hits=folded * requests) + self.credit * folded

    def thrashes(self, cm: ManagerView, reason: str, after: int, instead: int) -> bool:
        """Whether a compaction leaving a request of `after` tokens would have the window force the
        next one within the thrash guard's `thrash_requests`, where one leaving `instead` would not.
        Each compaction also archives the whole transcript and shows on the screen: a form of it
        that is cheaper in tokens (a record, or one appended to the kept compaction message) is not
        chosen when it brings the next compaction that near: records appended one after the other
        filled a 16K window's room until every request compacted, an 8K window's until every other."""
        forced = self.hard_limit(cm) if reason == "window" else cm.limits.threshold
        growth = max(self.growth.rate, 1.0)
        soon = cm.settings.thrash_requests + 1
        return (forced - after) / growth < soon <= (forced - instead) / growth

    # -- the output reserve -----------------------------------------------------------------------
    def output_limits(self, limits: Limits, configured: Limits, output_tokens: int, adaptive: bool,
                      asked: int = 0) -> Limits:
        """The limits with an output reserve that follows what this model writes: 1.25x the longest
        answer seen, at least 1,024 tokens and room for a summary, never more than the configured
        reserve (`configured`, which a lower `max_output` lowers, adaptive or not). A fixed 8K-20K
        reserve leaves a local model's 16K window little room to work. `asked`: the `max_tokens`
        the requests ask for, which an OpenAI-compatible server counts against the window with the
        prompt: the reserve is never less (but leaves the threshold a token at least; a request
        that cannot leave it is refused, pipeline.py)."""
        self.max_output_seen = max(self.max_output_seen, output_tokens)
        # Never more than the configured reserve: a `max_output` lowered since (a cap a refusal
        # named, measuring.py) lowers it, the model writing no more than that.
        reserve = min(limits.output_reserve, configured.output_reserve)
        if adaptive and self.max_output_seen:
            want = max(MIN_RESERVE, round(1.25 * self.max_output_seen),
                       self.summary_tokens + SUMMARY_INSTRUCTION_TOKENS)
            reserve = min(configured.output_reserve, want)
        if asked > reserve:
            reserve = min(asked, limits.window - limits.buffer - 1)
        if reserve == limits.output_reserve:
            return limits
        threshold = limits.window - reserve - limits.buffer
        scale = threshold / limits.threshold if limits.threshold > 0 else 1.0
        return dataclasses.replace(limits, output_reserve=reserve, threshold=threshold,
                                   collapse_commit=round(limits.collapse_commit * scale),
                                   collapse_blocking=round(limits.collapse_blocking * scale))

    # -- helpers --------------------------------------------------------------------------------
    def priced_by(self, cm: ManagerView) -> bool:
        """Whether decisions are priced: `priced_compaction` on and the model's prices known. With
        prices not known (`Prices(known=False)`), thresholds and counts decide, as with it off; only
        the kept tail (`choose_tail`) weighs the look-agains it spares at the default ratios."""
        return cm.settings.priced_compaction and self.prices.known

    def _keeps(self, cm: ManagerView, messages: list[ModelMessage]) -> KeepPlan:
        """What a compaction now would keep: the compactor's one answer per history (keep.py)."""
        cm.compactor.ratio = cm.calibration.ratio
        return cm.compactor.preview(messages, cm.overhead)

    def _rebuild(self, cm: ManagerView, messages: list[ModelMessage]) -> int:
        return int(self._keeps(cm, messages).rebuild(self.summary_size(cm.limits)))

    def forget(self, cm: ManagerView, messages: list[ModelMessage], request_tokens: int) -> float:
        """USD per request of the look-agains a compaction now would cause: how often the model has
        recently reached back further than the tail a compaction would keep verbatim, for what the
        results it keeps as in use do not hold, times what one look-again at a request of
        `request_tokens` costs (reuse.py)."""
        if cm.compactor is None or self.reuse is None:
            return 0.0
        return self.reuse.forget_cost(self.prices, self._keeps(cm, messages).tail_tokens, request_tokens,
                                      "cold", wait_usd=self.reuse.wait_usd(cm.settings.stall_wait_usd))

    def choose_tail(self, cm: ManagerView, base: int) -> int:
        """The verbatim tail a compaction keeps, in estimated tokens: of `base` (an eighth of the
        room) and its multiples up to half the room, the one whose cost per request until the next
        compaction is lowest. Each kept token is re-sent uncached once and then held, brings the
        next compaction nearer (`credit`), and keeps within reach what the model would otherwise
        look for again (reuse.py) — less so with each request after the compaction, whose growth
        lies between (the mean chance over them): the longer tail pays where the model keeps
        reaching back past the results it is using (which a compaction keeps anyway)."""
        if not cm.settings.priced_compaction or self.growth.rate <= 0 or self.reuse is None:
            return base
        fixed = cm.calibration.tokens(cm.overhead)
        limit = cm.limits.threshold
        head = self.summary_size(cm.limits) + fixed  # what the rebuild holds besides the tail
        request = head + base
        stall = self.reuse.stall_cost(self.prices, request, self.reuse.wait_usd(cm.settings.stall_wait_usd))
        growth = max(self.growth.rate, 1.0)
        best, best_cost = base, float("inf")
        for tail in (base // 2, base, 2 * base, 3 * base, 4 * base):
            room = limit - head - round(tail * cm.calibration.ratio)
            if tail <= 0 or room < growth:
                continue
            n = room / growth  # requests until the next compaction (reach depths are estimated tokens)
            held = round(tail * cm.calibration.ratio)
            cost = (self.prices.cost(resent=held) / n + self.prices.cost(hits=held) + self.credit * held / n
                    + self.reuse.stall_rate_over(tail, growth / cm.calibration.ratio, n, "cold") * stall)
            if cost < best_cost:
                best, best_cost = tail, cost
        return best

    def _plan(self, cm: ManagerView, context: int, rebuild: int, fixed: int,
              summary_share: float | None = None, forget: float = 0.0,
              forget_span: float = math.inf, fresh: int | None = None, cold: bool = False,
              cached: int = 0) -> CompactionPlan:
        """The plan for a compaction now (`fresh`: the tokens new since the previous request, which
        it keeps and would be sent uncached anyway; `cold`: this request's cache expired), or, with
        `fresh` given, for one later on."""
        new = self.growth.latest_step if fresh is None else fresh
        return plan_compaction(context=context, rebuild=rebuild, overhead=fixed,
                               summary_tokens=self.summary_size(cm.limits),
                               growth=self.growth.rate, requests_so_far=cm.requests, prices=self.prices,
                               summary_share=self.summary_share if summary_share is None else summary_share,
                               forget=forget, forget_span=forget_span, fresh=min(new, rebuild),
                               cold=cold, cached=cached, summary_hits=self.summary_hits)
