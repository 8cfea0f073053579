"""Where the tokens and the money went: every request's provider-reported usage, priced.

Main requests are recorded by `UsageLedger`, a pydantic-ai capability (so requests deep inside a
tool loop count too), with the model that served them — `/model` can switch mid-session, and a
token of one model is not a token of another. Summary and notes requests happen outside the agent
run; their usage lists are read from the session (`add_side`), priced with the model that made
them.

Cache hits, misses and writes are kept apart because they are priced apart (a hit costs ~1/10 of a
miss at DeepSeek and Anthropic; Anthropic charges extra for writes).

"What compaction saved" is an estimate of sending everything instead: for each main request, the
tokens the layers had taken out of that request (history estimate minus what was sent, scaled to
the provider's count) plus everything compactions had removed before it. Those tokens are priced
at the request's own mix of hits and misses — an un-compacted prefix would be cached the same
way — each request's at most up to a full window (whole, a request over it could not have been
sent), and the summary and notes requests, which exist only because of compaction, are subtracted.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from types import UnionType
from typing import Any

from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.messages import ModelResponse
from pydantic_ai.models import ModelRequestContext
from pydantic_ai.tools import RunContext
from pydantic_ai.usage import RequestUsage

from ...appended_lines import append_line
from ...context.plumbing import tokens
from ...models import ModelInfo
from ...regular_file import read_own
from ...secrets import redact
from ...words import plural


@dataclass
class Entry:
    kind: str  # "main" | "summary" | "notes"
    info: ModelInfo
    input_tokens: int
    cache_read: int
    cache_write: int
    output_tokens: int
    avoided: int = 0  # input tokens compaction kept out of this request (main requests only)
    #: A report's row: the sum of its requests' costs, each at the prices it was sent at (the prices
    #: of a model can change within a session: --prices given anew on resuming it); None: one request.
    summed_cost: float | None = None
    #: A request the user stopped mid-reply (Esc, Ctrl-C): the provider bills the input it read. Its
    #: figures are the usage received before the stop, its input the request's estimate where none came.
    stopped: bool = False
    estimated: bool = False
    #: Stopped before any of its reply came (a slow prefill, `thinking…`): sent, no usage; its input estimated.
    unanswered: bool = False

    @property
    def miss(self) -> int:
        return max(0, self.input_tokens - self.cache_read - self.cache_write)

    @property
    def cost(self) -> float:
        if self.summed_cost is not None:
            return self.summed_cost
        return self.info.cost(self.input_tokens, self.cache_read, self.output_tokens, self.cache_write)

    @property
    def input_cost(self) -> float:
        return self.info.cost(self.input_tokens, self.cache_read, 0, self.cache_write)


def _entry(kind: str, info: ModelInfo, u: RequestUsage, avoided: int = 0) -> Entry:
    return Entry(kind, info, u.input_tokens, u.cache_read_tokens, u.cache_write_tokens, u.output_tokens, avoided)


@dataclass
class UsageLedger(AbstractCapability[Any]):
    """Records each main request; `info` gives the model serving the session now."""

    info: Callable[[], ModelInfo]
    entries: list[Entry] = field(default_factory=list)  # this run's requests
    #: Where every request is also appended (fsynced), so a resumed session still knows its whole
    #: history's requests and cost; `earlier` holds what was there when this run began.
    path: Path | None = None
    earlier: list[Entry] = field(default_factory=list)
    removed: int = 0  # tokens compactions have taken out of the history so far (cumulative)
    last_layer_savings: int = 0  # what layers took out of the latest request
    #: This run's main requests the provider refused with an HTTP error (a prompt too long, then
    #: compacted and sent again; a rate limit): no usage, so in no entry, yet each was sent.
    refused: int = 0
    _side_seen: dict[str, int] = field(default_factory=dict)
    _counted: float = 1.0  # the provider's count of the last request it reported, over our estimate
    _prepared: bool = False  # the request being made was shaped and goes out (`wrap_model_request`)
    #: A request is being made and no entry counts it yet: a signal's result object counts it itself
    #: (ui/print_mode.py `terminated`), once; one Ctrl-C unwound is counted here (`wrap_model_request`).
    uncounted: bool = False

    async def after_model_request(self, ctx: RunContext[Any], *, request_context: ModelRequestContext,
                                  response: ModelResponse) -> ModelResponse:
        self._record(ctx, request_context, response.usage)
        return response

    async def wrap_model_request(self, ctx: RunContext[Any], *, request_context: ModelRequestContext,
                                 handler: Any) -> ModelResponse:
        """A request stopped by the user while its reply streamed (Esc, Ctrl-C) never reaches
        `after_model_request`, yet the server answered it and the provider bills the input it read:
        /cost counted 17 requests of 18 answered. Counted here, with the usage received before the
        stop (pydantic-ai keeps the stopped stream's partial response on the request context), its
        input estimated where none came (an OpenAI-compatible stream reports usage at its end).
        Stopped before any of its reply came (a slow prefill: `thinking…`), it had been sent all the
        same: /cost counted 3 requests of the 4 a server saw, and said nothing of the fourth. It is
        counted with its input as estimated, `unanswered`, once it was prepared to go out: a turn
        stopped while the compaction before its request wrote the summary sent no main request."""
        self._prepared, self.uncounted = False, True
        try:
            return await handler(request_context)  # type: ignore[no-any-return]
        except (asyncio.CancelledError, KeyboardInterrupt):
            partial = [r for r in getattr(request_context, "_usage_responses", ()) if isinstance(r, ModelResponse)]
            if partial:  # the stream had opened: the server answered, the stop came during its reply
                usage = partial[-1].usage
                self._record(ctx, request_context, usage, stopped=True, estimated=not usage.input_tokens)
            elif self._prepared:  # sent, no byte of its reply yet: what it sent, as estimated
                self._record(ctx, request_context, RequestUsage(), stopped=True, estimated=True, unanswered=True)
            raise

    async def prepare_model_request(self, ctx: RunContext[Any], request_context: ModelRequestContext
                                    ) -> ModelRequestContext:
        """After the context manager's (it comes before this capability): the request is shaped, any
        compaction it needed done, and what follows sends it. (Before pydantic-ai 2.64, without this
        hook, a request stopped before its reply is not counted: none is known to have gone out.)"""
        self._prepared = True
        return request_context

    async def on_model_request_error(self, ctx: RunContext[Any], *, request_context: ModelRequestContext,
                                     error: Exception) -> ModelResponse:
        """A request the provider refused (an HTTP error: a prompt too long, then compacted and sent
        again; a rate limit) reported no usage, so it is in no entry: counted apart (`refused`). The
        error goes on to the capabilities that recover from it."""
        if isinstance(error, ModelHTTPError):
            self.refused += 1
        self.uncounted = False
        raise error

    def _record(self, ctx: RunContext[Any], request_context: ModelRequestContext, u: RequestUsage,
                stopped: bool = False, estimated: bool = False, unanswered: bool = False) -> None:
        self.uncounted = False
        sent = list(request_context.messages)
        history = list(ctx.messages)
        # The layers' saving for this request, in the provider's units: scaled by its count of the
        # whole request against our estimate of the whole, system prompt and tools included (scaled
        # against the messages alone, a 4-token difference came out as 106 in a first request).
        # Parts are compared, not messages: the request sent joins the saved ones that follow each
        # other (a file attached with @path, then the prompt), which takes nothing out.
        params = request_context.model_request_parameters
        instructions = "\n".join(str(getattr(p, "content", "")) for p in (params.instruction_parts or []))
        whole = tokens.estimate(sent) + tokens.request_overhead(instructions, params.function_tools)
        if estimated:  # our estimate, scaled as the provider counted the last request it reported
            u = replace(u, input_tokens=round(whole * self._counted))
        ratio = (u.input_tokens / whole) if (u.input_tokens and whole) else 1.0
        if not estimated and u.input_tokens and whole:
            self._counted = ratio
        self.last_layer_savings = max(0, round((_parts(history) - _parts(sent)) * ratio))
        self._add(replace(_entry("main", self.info(), u, self.last_layer_savings + self.removed),
                          stopped=stopped, estimated=estimated, unanswered=unanswered))

    def __post_init__(self) -> None:
        if self.path is not None:
            self.earlier = load_entries(self.path)

    def _add(self, e: Entry) -> None:
        self.entries.append(e)
        if self.path is None:
            return
        # a name is what the user typed (`-m "$KEY"` pasted in the wrong place): the key reaches no file
        line = json.dumps({"kind": e.kind, "model": {**asdict(e.info), "name": redact(e.info.name)}, "input": e.input_tokens, "read": e.cache_read,
                           "write": e.cache_write, "output": e.output_tokens, "avoided": e.avoided,
                           **({"stopped": True} if e.stopped else {}),
                           **({"estimated": True} if e.estimated else {}),
                           **({"unanswered": True} if e.unanswered else {})}) + "\n"
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # a line torn by a crash or a full disk: the next request's starts on a line of its own
            append_line(self.path, line.encode(), sync=True)
        except OSError:
            pass  # the figures of this run are still in memory; the session itself is unaffected

    @property
    def all_entries(self) -> list[Entry]:
        return [*self.earlier, *self.entries]

    def compacted(self, tokens_before: int, tokens_after: int) -> None:
        """A compaction removed history: it (and what the layers had hidden of it) is avoided from now on.
        `tokens_before` is the request it replaced (the layers' saving hid the rest of the history),
        `tokens_after` the history it left, as saved: a tail that keeps a long output whole can leave
        more than that request sent, so the history's loss is the whole difference, never below 0
        (clamped apart, the layers' saving counted whole: 7,266 where the history lost 960)."""
        self.removed += max(0, tokens_before + self.last_layer_savings - tokens_after)
        self.last_layer_savings = 0

    def add_side(self, kind: str, usages: Sequence[RequestUsage], info: ModelInfo) -> None:
        """Record summary/notes requests not seen yet (the lists only grow)."""
        seen = self._side_seen.get(kind, 0)
        for u in usages[seen:]:
            self._add(_entry(kind, info, u))
        self._side_seen[kind] = len(usages)


def _parts(messages: Sequence[Any]) -> int:
    """The estimated tokens of the messages' parts, without each message's framing."""
    return sum(tokens.part_tokens(p) for m in messages for p in m.parts)


def load_entries(path: Path) -> list[Entry]:
    """The requests an earlier run of this session recorded; unreadable lines are skipped."""
    out: list[Entry] = []
    try:
        lines = read_own(path).decode("utf-8", errors="replace").splitlines()
    except OSError:
        return out
    for line in lines:
        try:
            d = json.loads(line)
            out.append(Entry(_of(str, d["kind"]), _model_info(d["model"]), _count(d["input"]), _count(d["read"]),
                             _count(d["write"]), _count(d["output"]), _count(d.get("avoided", 0)),
                             stopped=d.get("stopped") is True, estimated=d.get("estimated") is True,
                             unanswered=d.get("unanswered") is True))
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
            continue
    return out


def _of(kind: type[Any] | UnionType, value: Any) -> Any:
    """`value` when it is a `kind` (an int is no bool here): a line edited by hand or torn is skipped
    when read, not a cost that fails to add up when `/cost` sums it."""
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise TypeError
    return value


def _count(value: Any) -> int:
    n = _of(int, value)
    if n < 0:
        raise ValueError
    return int(n)


def _price(value: Any) -> float:
    x = float(_of(int | float, value))
    if not math.isfinite(x) or x < 0:
        raise ValueError
    return x


def _model_info(d: Any) -> ModelInfo:
    """The model a recorded request was priced with, each field of the type a price needs."""
    if not isinstance(d, dict):
        raise TypeError
    known = d.get("prices_known")
    if known is not None:
        _of(bool, known)
    return ModelInfo(_of(str, d["name"]), _of(str, d["provider"]), _count(d["window"]), _count(d["max_output"]),
                     _price(d["input"]), _price(d["output"]), _price(d["cache_read"]), _price(d["cache_write"]),
                     _price(d.get("cache_ttl_s", 3600.0)), _of(bool, d.get("images", False)), known)


@dataclass
class CostReport:
    rows: dict[str, Entry]  # "<kind> · <model>" -> summed entry
    requests: dict[str, int]
    total: Entry  # token sums over every model (its own price fields are meaningless)
    total_cost: float  # of the requests whose prices are known (`unpriced` counts the others)
    avoided_tokens: int  # what the layers and compactions kept out of the main requests
    #: those tokens priced, each request's at most what a full window has room for (`over_window`)
    avoided_cost: float
    compaction_cost: float
    over_window: int  # main requests that would not have fit the window without compaction: priced at a full window
    #: requests made without prices, priced at those given since for their model (context_report.cost_report)
    repriced: int = 0
    stopped: int = 0  # requests the user stopped mid-reply or before it, counted with what is known of them
    estimated: int = 0  # of them, those whose input is the request's estimate (no usage had come)
    unanswered: int = 0  # of those, the ones stopped before any of their reply came (`Entry.unanswered`)
    unanswered_input: int = 0  # their input tokens, as estimated
    #: requests made with a model whose prices are unknown: their cost is in no sum (`total_cost` is
    #: what the others cost), counted apart (`cost_words`)
    unpriced: int = 0
    #: `avoided_tokens` as `avoided_cost` prices them: each request's at most what a full window has
    #: room for. /cost says this one: 28 compactions in a 16K window summed to '~1,916,791,721 input
    #: tokens kept out', as many as no request could ever have carried
    avoided_sendable: int = 0

    @property
    def priced(self) -> bool:
        """Whether every model in it has a known price (else its cost is unknown, not $0)."""
        return all(e.info.has_prices for e in self.rows.values())

    @property
    def unpriced_models(self) -> list[str]:
        """The models whose requests have no known price, each once, in the order first used."""
        return list(dict.fromkeys(redact(e.info.name) for e in self.rows.values() if not e.info.has_prices))

    @property
    def net_saving(self) -> float:
        return self.avoided_cost - self.compaction_cost


def cost_words(r: CostReport) -> str:
    """What the requests cost, by one rule wherever it is said (the toolbar, /cost's total, its line
    for this run): the requests of known prices summed, those of unknown prices counted apart, so the
    figure is what was at least spent: `$0.0906`, `$0.0906 + 3 requests at unknown prices`, or
    `2 requests at unknown prices` where none has a known price. After a switch to a model without
    prices and back, the toolbar said `cost unknown` of a session that had spent $0.09, then `$0.0906`
    with nothing said of the rest, and /cost's total `unknown`."""
    if not r.unpriced:
        return f"${r.total_cost:.4f}"
    unknown = f"{plural(r.unpriced, 'request')} at unknown prices"
    return unknown if r.unpriced == sum(r.requests.values()) else f"${r.total_cost:.4f} + {unknown}"


def report(entries: Sequence[Entry], window: Callable[[ModelInfo], int] | None = None) -> CostReport:
    rows: dict[str, Entry] = {}
    requests: dict[str, int] = {}
    total_info = ModelInfo("all", "-", 0, 0, 0, 0, 0, 0)
    total = Entry("all", total_info, 0, 0, 0, 0)
    total_cost = 0.0
    avoided_tokens = 0
    avoided_cost = 0.0
    sendable = 0
    compaction_cost = 0.0
    over = 0
    unpriced = 0
    for e in entries:
        key = f"{e.kind} · {redact(e.info.name)}"  # a key pasted for the name is not printed (/cost)
        row = rows.get(key)
        if row is None:
            row = rows[key] = Entry(e.kind, e.info, 0, 0, 0, 0, summed_cost=0.0)
        row.summed_cost = (row.summed_cost or 0.0) + e.cost  # not the row's tokens at its first prices
        for target in (row, total):
            target.input_tokens += e.input_tokens
            target.cache_read += e.cache_read
            target.cache_write += e.cache_write
            target.output_tokens += e.output_tokens
            target.avoided += e.avoided
        requests[key] = requests.get(key, 0) + 1
        if e.info.has_prices:
            total_cost += e.cost
        else:
            unpriced += 1
        if e.kind == "main" and e.avoided:
            avoided_tokens += e.avoided
            per_token = e.input_cost / e.input_tokens if e.input_tokens else e.info.input / 1e6
            # Priced against a request that could have been sent: whole, or a full window where whole
            # it would not have fit (a provider refuses it). Priced whole, `net` was a saving over a
            # run that could not have happened.
            room = max(0, (window(e.info) if window else e.info.window) - e.input_tokens)
            avoided_cost += min(e.avoided, room) * per_token
            sendable += min(e.avoided, room)
            if e.avoided > room:
                over += 1
        elif e.kind != "main":
            compaction_cost += e.cost
    return CostReport(rows, requests, total, total_cost, avoided_tokens, avoided_cost, compaction_cost, over,
                      stopped=sum(e.stopped for e in entries), estimated=sum(e.estimated for e in entries),
                      unanswered=sum(e.unanswered for e in entries),
                      unanswered_input=sum(e.input_tokens for e in entries if e.unanswered),
                      unpriced=unpriced, avoided_sendable=sendable)
