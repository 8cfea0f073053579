"""What an action on the context costs and what it saves, in the provider's prices.

Every request re-sends the whole context. With prompt caching, the part that matches the previous
request's prefix is billed at the cache-hit price (a tenth of a miss at DeepSeek and Anthropic) and
the rest at the miss price (Anthropic: the cache-write price). So three quantities decide every
action of the pipeline:

* **holding** — each token kept in the context costs `hit` on every later request;
* **rewriting** — changing the prompt at position p re-sends everything after p once, at
  `resend` instead of `hit`;
* **side requests** — a summary shares the cached prefix (its input is mostly hits) and pays
  its output at the output price.

A compaction is an order in the inventory sense: it costs a fixed amount `K` (the summary request
and the rebuilt history re-sent uncached, less what arrived since the previous request, which goes
uncached either way) and then holds `R` tokens instead of `C`. With a context
that grows by `g` tokens per request, compacting each time the context has grown by `D` past the
rebuild costs, per request, `hit·(R + D/2)` for holding plus `K·g/D` for the compactions; the
minimum is at `D* = sqrt(2·g·K/hit)` (the economic order quantity). The pipeline compacts when the
context has grown `D*` past what a compaction would rebuild, and earlier than the window forces it
only when the saving still expected in the session pays for it. Nothing here is fitted to any
transcript: the inputs are the model's prices, the session's measured growth per request, the
measured size of summaries, and the sizes of what a compaction would keep.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..plumbing.settings import SUMMARY_INSTRUCTION_TOKENS, said, said_with_type

__all__ = ["CompactionPlan", "Growth", "Prices", "plan_compaction", "record_pays", "rewrite_pays", "summary_cost"]


@dataclass(frozen=True)
class Prices:
    """USD per million tokens. Only their ratios matter to the decisions below.

    The default is DeepSeek V3.2's list price (the agent's default model): miss $0.28, hit
    $0.028, output $0.42, no cache-write surcharge, entries kept about an hour.

    `known=False`: the model's prices are not known (a local server, often free per token). Nothing
    is then priced (`Schedule.priced_by`): thresholds and counts decide, as with `priced_compaction`
    off, and a cheaper form of a compaction is taken only where it is cheaper at any prices. A
    compaction the window does not force would forget for a saving nobody knows there is.
    """

    miss: float = 0.28
    hit: float = 0.028
    output: float = 0.42
    write: float = 0.0  # cache write (Anthropic 1.25x input); 0 = writes cost a miss
    ttl_s: float = 3600.0
    known: bool = True

    def __post_init__(self) -> None:
        for name in ("miss", "hit", "output", "write", "ttl_s"):
            value = getattr(self, name)
            unit = "seconds" if name == "ttl_s" else "USD per million tokens"
            wrong = f"Prices.{name} must be a number of {unit}, 0 or more, not {said(value)}"
            if isinstance(value, bool) or not isinstance(value, int | float):  # "0.28" read from a config
                raise TypeError(wrong)  # the wrong type, as the settings' and the manager's checks say it
            if not 0 <= value < math.inf:
                raise ValueError(wrong)
        if self.hit > self.miss:  # the two swapped: every decision would price a cache hit above a miss
            raise ValueError(f"Prices.hit ({self.hit:g}) is above Prices.miss ({self.miss:g}): a cache hit never "
                             "costs more (give the same price twice for a model without a cache discount)")
        if not isinstance(self.known, bool):  # "false" read from a config is true: every decision priced
            raise TypeError(f"Prices.known must be True or False, not {said_with_type(self.known)}")

    @property
    def resend(self) -> float:
        """What a token re-sent after a rewrite costs: a miss, or a cache write where that is dearer."""
        return max(self.miss, self.write)

    def cost(self, *, hits: float = 0, resent: float = 0, output: float = 0) -> float:
        """USD for that many cache-hit, re-sent and output tokens."""
        return (hits * self.hit + resent * self.resend + output * self.output) / 1e6


RECENT_STEPS = 100
"""Requests whose growth `Growth.requests_until` looks at: the session's current stretch of work."""


@dataclass
class Growth:
    """How fast the context grows: new message tokens per model request, over the session.

    The mean since the start of the session (not a short moving average): the cost of a compaction
    is paid back over many requests, so the long-run rate is what the decision needs, and a single
    huge tool result should not make the pipeline compact on the next request.
    """

    total: float = 0.0
    requests: int = 0
    last_size: int | None = None
    steps: deque[int] = field(default_factory=lambda: deque(maxlen=RECENT_STEPS))

    def observe(self, size: int) -> None:
        """The history (message tokens) as the next request is prepared."""
        if self.last_size is not None:
            self.total += max(0, size - self.last_size)
            self.requests += 1
            self.steps.append(max(0, size - self.last_size))
        self.last_size = size

    def seed(self, steps: Sequence[int]) -> None:
        """Growth measured before this manager existed (a conversation resumed after a restart):
        `steps`, the tokens each of its requests added, oldest first."""
        self.total, self.requests = float(sum(steps)), len(steps)
        self.steps.extend(steps)

    def rebase(self, size: int) -> None:
        """After a compaction the history shrank: measure growth from its new size."""
        self.last_size = size

    @property
    def rate(self) -> float:
        return self.total / self.requests if self.requests else 0.0

    @property
    def latest_step(self) -> int:
        """The growth of the newest request: what is new since the previous one (0 before any)."""
        return self.steps[-1] if self.steps else 0

    @property
    def typical_step(self) -> int:
        """The median growth of the recent requests: what a request usually adds."""
        return sorted(self.steps)[len(self.steps) // 2] if self.steps else 0

    def requests_until(self, room: float) -> float:
        """How many requests the history typically takes to grow by `room` tokens: at the median
        growth of the recent requests. Growth comes in bursts (a large file read among small
        steps), so the mean, which the bursts make, says the room is used up sooner than it usually
        is; a decision that counts what happens until then must not count too few. At least one."""
        if not self.steps:
            return max(1.0, room / max(self.rate, 1.0))
        return max(1.0, room / max(self.typical_step, 1))


@dataclass(frozen=True)
class CompactionPlan:
    """The decision for the current request, with the numbers behind it (for events and tests)."""

    compact: bool
    point: float  # context size (message tokens) at which compacting is cheapest per request
    fixed_cost: float  # USD of one compaction: summary request + rebuilt history re-sent
    saving: float  # USD per later request of holding the rebuild instead of the context
    payback: float  # requests needed to earn the fixed cost back
    horizon: float  # requests still expected in the session
    rebuild: float = 0.0  # what the compaction would keep
    context: float = 0.0  # the history it was planned for
    lost: float = 0.0  # USD of the look-agains it causes

    def pays_at(self, growth: float, prices: Prices) -> float:
        """Where (history tokens) this plan, declined for its payback, would be made: the history grows
        by `growth` a request and the session is expected to last one request longer with each, until
        holding what it frees over the expected rest pays for its cost and look-agains: the least j with
        hit x (context + j x growth - rebuild) x (horizon + j) >= fixed_cost + lost. Infinite when
        holding costs nothing."""
        if prices.hit <= 0:
            return math.inf
        g, held = max(growth, 1.0), self.context - self.rebuild
        a, b = g, held + g * self.horizon
        c = held * self.horizon - (self.fixed_cost + self.lost) * 1e6 / prices.hit
        j = 0.0 if c >= 0 else math.ceil((-b + math.sqrt(b * b - 4 * a * c)) / (2 * a))
        return self.context + j * g

    @property
    def credit_per_token(self) -> float:
        """USD a token freed by a view rewrite saves in compactions: one costs `fixed_cost` every
        `point - rebuild` tokens of growth."""
        cycle = self.point - self.rebuild
        return self.fixed_cost / cycle if cycle > 0 and math.isfinite(cycle) else 0.0




def plan_compaction(*, context: int, rebuild: int, overhead: int, summary_tokens: int, growth: float,
                    requests_so_far: int, prices: Prices, summary_share: float = 1.0,
                    forget: float = 0.0, forget_span: float = math.inf, fresh: int = 0,
                    cold: bool = False, cached: int = 0, summary_hits: float = 1.0) -> CompactionPlan:
    """Whether compacting now, before the window forces it, is cheaper than waiting.

    `context` is the history's size in tokens (without the fixed system prompt and tools,
    `overhead`), `rebuild` what the history would be right after a compaction (summary, the user's
    messages, kept tail, restored files), `summary_tokens` the expected summary output.

    The fixed cost K of a compaction is the summary request (the shared prefix at hit price, the
    instruction uncached, the summary as output) plus the rebuilt history re-sent uncached; holding
    the rebuild for the request that would otherwise hold the context adds `rebuild·hit`. The best
    point is `rebuild + sqrt(2·growth·K/hit)`. It is acted on only when the compaction also pays
    back within the requests still expected: a session is expected to last about as long again as
    it has so far (the median of a heavy-tailed length), so an early compaction in a short session,
    which could not pay back, is never made.

    `summary_share` is the share of compactions expected to ask a model for a summary (the others
    keep a record written without a model, and cost only the rebuild): compactions that cost less
    come sooner.

    `fresh` is the part of the rebuild that is new since the previous request (the newest round,
    which every compaction keeps): it is sent uncached whether the history is compacted or not, so
    it is no part of the compaction's cost. Nor is it in a summary request, which is the request
    last sent (a cache hit) with the instruction appended; the part summarised is what it held.

    `cached` is the part of the rebuild that stays where it is, a cache hit: the compaction message
    the history starts with, which a compaction keeping a record leaves in place and appends to
    (`compactor.py`). It is held like the rest of the rebuild but not re-sent.

    `cold`: the provider's cache has expired (`plumbing/cache.py`), so this request goes out
    uncached whatever it holds. Not compacting then sends the whole history at the miss price, and
    a compaction that keeps a record saves `(context - fresh)·(miss - hit)` more than it would on a
    warm cache. A summary saves nothing more: its own request re-sends the cold history.

    `forget` is USD per later request of the look-agains the compaction causes (`reuse.py`: how
    often the session's responses reach back past what it would keep, times what a look-again
    costs), for `forget_span` requests: until a compaction the window forces anyway would drop the
    same (and, keeping less, forget more). It comes off the saving: a compaction of context the
    model is still using does not pay.

    `summary_hits`: the share of the summary request's prefix the provider serves from its cache
    (`summary_cost`), 1 unless the session's summaries were measured to get less.
    """
    request = summary_cost(prefix=overhead + max(0, context - fresh), summary_tokens=summary_tokens, prices=prices,
                           hits=summary_hits)
    k = prices.cost(resent=max(0, rebuild - fresh - (0 if cold else cached))) + summary_share * request
    if cold:
        stale = max(0, context - fresh)
        k -= (1.0 - summary_share) * (prices.cost(resent=stale) - prices.cost(hits=stale))
    k_eff = k + prices.cost(hits=rebuild)
    hit = prices.hit / 1e6
    cycle = math.sqrt(2 * max(growth, 1.0) * max(k_eff, 0.0) / hit) if hit > 0 else math.inf
    point = rebuild + cycle
    horizon = float(requests_so_far)
    held = prices.cost(hits=max(0, context - rebuild))
    lost = forget * min(forget_span, horizon)  # the look-agains that are this compaction's own
    saving = held - (lost / horizon if horizon > 0 else forget)
    payback = (k + lost) / held if held > 0 else math.inf
    return CompactionPlan(compact=context >= point and payback <= horizon, point=point, fixed_cost=k,
                          saving=saving, payback=payback, horizon=horizon, rebuild=rebuild, context=context, lost=lost)


def rewrite_pays(*, tail: int, removed: int, requests: float, prices: Prices, credit: float = 0.0,
                 forget: float = 0.0) -> bool:
    """Whether a view rewrite that re-sends `tail` tokens once and then removes `removed` tokens
    from each of the next `requests` requests earns more than it costs. `credit` is USD per token
    removed for the compactions it postpones: a compaction comes every `D*` tokens of growth and
    costs `K`, so each token freed saves `K/D*` of one. `forget` is USD per request of the
    look-agains the removal causes (`reuse.py`)."""
    cost = prices.cost(resent=tail) - prices.cost(hits=tail) + forget * requests
    return prices.cost(hits=removed) * requests + credit * removed > cost


def summary_cost(*, prefix: int, summary_tokens: int, prices: Prices, hits: float = 1.0) -> float:
    """USD of one summary request: the shared prefix (`prefix`: system prompt, tools and the
    history as last sent) at hit price, the instruction uncached, the summary as output.

    `hits`: the share of the prefix served from the cache. A summary written by the run's model
    with the run's request shape shares the run's cached prefix whole (1); one written by another
    model (`summary_model`: its own cache, cold) or for an agent whose output instruction sits
    before the messages (`PromptedOutput`) gets less, and the rest is sent at the miss price."""
    share = min(1.0, max(0.0, hits))
    cached = round(prefix * share)
    return prices.cost(hits=cached, resent=prefix - cached + SUMMARY_INSTRUCTION_TOKENS, output=summary_tokens)


def record_pays(*, extra: int, requests: float, summary: float, prices: Prices, credit: float = 0.0) -> bool:
    """Whether a compaction record written without a model, `extra` tokens longer than the summary
    it stands in for, costs less than the summary request (`summary`, USD). Each extra token is
    sent once uncached with the rebuilt history, then held at hit price for `requests` requests,
    and brings the next compaction nearer (`credit`, USD per token, as for view rewrites)."""
    if extra <= 0:
        return True
    return prices.cost(resent=extra, hits=extra * requests) + credit * extra < summary
