"""What the pipeline reports: one `Event` per layer action or compaction, and a layer's result.

Events are plain data so the session can log them as JSON lines and `/status` and the analyzer can
add them up per layer. Each kind has its own class (`BudgetEvent`, `CompactionEvent`, ...; all
subclasses of `Event`, told apart by `layer`), so a handler can `match` on the type:

    match event:
        case CompactionEvent(): print(event.strategy, event.tokens_before, "->", event.tokens_after)
        case MicrocompactEvent(): ...

`tokens_before`/`tokens_after` of a view layer's event are the sizes of the whole view it shaped;
`tokens_freed` is what this one decision took out (counted once, not on every later request).

The same events go to the run's own event stream, as pydantic-ai's capability events (a
capability hook may emit them with `RunContext.emit`, on every pydantic-ai-slim the library runs
on: compat.py), which `run_stream_events`, `iter`'s node streams, an `event_stream_handler` and
`@agent.on_event` listeners read beside pydantic-ai's own: `ContextManagerEvent` carries one
`Event` as the `event_handler` gets it (the same object), and `CompactionStartedEvent` says a
compaction of the run begins, dispatched at once, so an `@agent.on_event` listener runs before its
summary request is sent. The events happen in plain functions deep in the layers and the
compaction, where no `RunContext` is at hand: while a run is in progress (`RunStream.running`, set
by `wrap_run`) each waits in the manager's `RunStream`, and the model-request hooks send what
waits, in order, with the run's context. What happens after the run's last model response, and
`compact_now` outside any run, reach the `event_handler` alone (pydantic-ai delivers nothing a
hook emits after the run's last request).
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, ClassVar, Protocol

from pydantic_ai.exceptions import ModelHTTPError, UserError
from pydantic_ai.messages import CapabilityEvent, ModelMessage
from pydantic_ai.tools import RunContext

from ..decisions.economics import Prices, rewrite_pays
from . import event_words, tokens

log = logging.getLogger(__name__)


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
    freed: int | None = None  # the decision's own saving, when the totals are of a larger view
    conversation_id: str | None = None  # the conversation it happened in (pydantic-ai's `conversation_id`)
    run_id: str | None = None  # the run it happened in (pydantic-ai's `run_id`); None outside a run
    agent_name: str | None = None  # the name of that run's agent (`Agent(name=...)`, or the one pydantic-ai gave it)

    kind: ClassVar[str] = "event"

    @property
    def tokens_freed(self) -> int:
        return max(0, self.freed if self.freed is not None else self.tokens_before - self.tokens_after)

    @property
    def failed(self) -> bool:
        return self.action == "failed"

    @property
    def error(self) -> str | None:
        """The one-line error of a failed action."""
        return self.detail.get("error") if self.failed else None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def __str__(self) -> str:  # one line a person reads (event_words.py); repr() keeps the fields
        return event_words.said(self)


@dataclass
class BudgetEvent(Event):
    """L1: oversized tool results replaced by a preview (`action` "spill": the full text went to a
    side file, `paths`; "truncate": no store for side files, the rest is gone from the view)."""

    kind: ClassVar[str] = "budget"

    @property
    def paths(self) -> list[str]:
        return list(self.detail.get("paths") or [])


@dataclass
class SnipEvent(Event):
    """L2: empty results, repeated reminders and superseded identical reads dropped from the view."""

    kind: ClassVar[str] = "snip"


@dataclass
class MicrocompactEvent(Event):
    """L3: a batch of old tool results cleared (`trigger` "priced": it paid at the model's prices;
    "count": past the count trigger, prices unknown; "time": the cache had expired)."""

    kind: ClassVar[str] = "microcompact"


@dataclass
class CollapseEvent(Event):
    """L4: the oldest finished rounds folded into a digest (one commit)."""

    kind: ClassVar[str] = "collapse"


@dataclass
class CompactionEvent(Event):
    """L5: the history was rewritten; or a compaction "failed", or was "blocked" (`before_compact`
    raised `CompactionBlocked`, or a preview was not confirmed: `detail["reason"]`, and what
    happens instead in `detail["fallback"]`), and the history is unchanged.

    `strategy` (= `action`): "full" (a summary written by a model), "record" (a record of the
    steps written without a model), "session_memory" (the session notes stood in), "partial_from" /
    "partial_up_to" (the agent's `/compact` around a message). `incremental` is True when the
    previous compaction's message was kept as it was (a cache hit) and the update appended to it.
    """

    kind: ClassVar[str] = "compact"

    @property
    def strategy(self) -> str:
        return self.action

    @property
    def incremental(self) -> bool:
        return bool(self.detail.get("incremental"))

    @property
    def archive(self) -> str | None:
        return self.detail.get("archive")


@dataclass
class NotesEvent(Event):
    """Session notes: "update" (written in the background), "skip" (could not stand in for a
    summary, `detail["reason"]`), "failed"."""

    kind: ClassVar[str] = "memory"


@dataclass
class ConversationEvent(Event):
    """A conversation's state let go (`action` "dropped"): past `max_conversations`, the least recently used
    idle one goes, and a run of it later starts afresh. What went with it: `detail["compactions"]`, and
    `detail["archives"]`, the transcripts its store held (with the default `InMemoryStore`, their only copy)."""

    kind: ClassVar[str] = "conversation"

    @property
    def archives(self) -> int:
        return int(self.detail.get("archives") or 0)


#: The view layers' names, L1 to L4: each layer's `name`, and the `layer` of its events. What goes by
#: them outside the layers (the terminal's lines and /status, the demo, the analyzer's labels) takes them here.
LAYER_NAMES: tuple[str, ...] = tuple(c.kind for c in (BudgetEvent, SnipEvent, MicrocompactEvent, CollapseEvent))
EVENT_TYPES: dict[str, type[Event]] = {c.kind: c for c in (BudgetEvent, SnipEvent, MicrocompactEvent,
                                                           CollapseEvent, CompactionEvent, NotesEvent,
                                                           ConversationEvent)}


def typed(event: Event) -> Event:
    """The same event, as an instance of its kind's class (layers build plain `Event`s). The
    object is kept, not copied: whoever holds it (a `CompactionResult`) sees what the sink sees."""
    cls = EVENT_TYPES.get(event.layer)
    if cls is not None and type(event) is Event:
        event.__class__ = cls  # the subclasses add no fields, only their names and accessors
    return event


@dataclass
class LayerResult:
    """What every view layer returns: the new view, the tokens it freed and what it did."""

    messages: list[ModelMessage]
    tokens_freed: int = 0
    events: list[Event] = field(default_factory=list)


class Layer(Protocol):
    """A view layer (L1-L4): shapes what is sent, from the history and its own frozen decisions."""

    name: str

    def apply(self, messages: list[ModelMessage], budget: Budget) -> LayerResult: ...


@dataclass
class Budget:
    """What a layer may know about the request it shapes. `tokens` is the calibrated size of the view
    as it reaches the layer; `now` comes from an injected clock so time-based decisions are testable."""

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
    horizon: float = float("inf")  # requests the session is still expected to last (as long again as so far)
    # USD per request of the look-agains caused by removing what lies deeper than an estimated depth (tokens
    # back from the end) of a kind (reuse.py `Reach`: "any", "result", "cold", "cold_result"), from the
    # session's measured reuse. None: forgetting is not priced.
    forget: Callable[[int, str], float] | None = None
    hot: Callable[[str], bool] | None = None  # tool results the model is still using (reuse.py)
    # The estimated size of messages as the provider counts them (the manager's `estimate`: without
    # the thinking it leaves out, plumbing/thinking.py). None: characters/4 of all of them.
    estimate: Callable[[Sequence[ModelMessage]], int] | None = None

    def size(self, messages: Sequence[ModelMessage]) -> int:
        """The estimated size of `messages` (`estimate`), in the units of `rewrite_pays`' arguments."""
        return (self.estimate or tokens.estimate)(messages)

    def rewrite_pays(self, tail_est: int, removed_est: int, depth_est: int | None = None,
                     kind: str = "any") -> bool:
        """Whether a view rewrite that re-sends `tail_est` estimated tokens once and then removes
        `removed_est` from every request until the next compaction (which it postpones) pays, in
        this budget's prices (economics.rewrite_pays); True when unpriced. `depth_est`: the newest
        removed content lies this many estimated tokens back, so the model will look again for it
        as often as it has reached that far."""
        if self.prices is None:
            return True
        removed = round(removed_est * self.ratio)
        forget = self.forget(depth_est, kind) if self.forget is not None and depth_est is not None else 0.0
        return rewrite_pays(tail=round(tail_est * self.ratio), removed=removed,
                            requests=self.requests_until_compaction(removed), prices=self.prices,
                            credit=self.credit, forget=forget)

    def requests_until_compaction(self, freed: int = 0) -> float:
        """Requests expected before the next compaction if `freed` tokens left the context now, in `horizon`."""
        if self.growth <= 0:
            return 0.0
        return min(self.horizon, max(0.0, (self.compact_at - self.tokens + freed) / self.growth))

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


def one_line(e: BaseException) -> str:
    """The error's first line, for people (and the `error` an event carries): its class name only
    when it has no message. An `OSError` Python would print as `[Errno 28] No space left on device:
    '/data/chat.jsonl'` is its reason and file, `No space left on device: /data/chat.jsonl` (one
    whose class words its own message keeps it)."""
    if isinstance(e, ModelHTTPError):  # not pydantic-ai's "status_code: 400, ..., body: {<a Python dict>}"
        body = e.body.get("error", e.body) if isinstance(e.body, dict) else e.body
        said = body.get("message") if isinstance(body, dict) else body
        lines = said.strip().splitlines() if isinstance(said, str) else []
        return (f"HTTP {e.status_code}: {lines[0]}" if lines else f"HTTP {e.status_code}")[:300]
    if isinstance(e, OSError) and e.strerror and type(e).__str__ is OSError.__str__:
        files = " -> ".join(str(f) for f in (e.filename, e.filename2) if f)
        return (f"{e.strerror}: {files}" if files else e.strerror)[:300]
    text = str(e).strip().splitlines()
    return (text[0] if text else type(e).__name__)[:300]


# -- which run an event happened in -----------------------------------------------------------

#: The run whose hooks run in this task, and in the tasks they start (notes written beside it, even
#: past its end): the conversation's state it runs in, its `run_id` and its agent's name.
_RUN: ContextVar[tuple[object, str | None, str | None] | None] = ContextVar("compact_agent_event_run", default=None)


@contextlib.contextmanager
def of_run(state: object, ctx: RunContext[Any]) -> Iterator[None]:
    """The events `state` emits inside are of the run `ctx` is of (`stamp`)."""
    agent = getattr(ctx, "agent", None)
    name = getattr(agent, "name", None)
    token = _RUN.set((state, getattr(ctx, "run_id", None), name if isinstance(name, str) else None))
    try:
        yield
    finally:
        _RUN.reset(token)


def stamp(event: Event, state: object, conversation: str | None) -> None:
    """Name where `event` happened: the conversation `state` serves and, inside a run of it, the run
    and its agent; an application running several agents or conversations on one manager (or one
    handler on several) tells them apart by these. Another conversation's state emitting meanwhile
    (one let go past `max_conversations`) is of no run."""
    if event.conversation_id is None and conversation:
        event.conversation_id = conversation
    run = _RUN.get()
    if run is not None and run[0] is state:
        event.run_id = event.run_id or run[1]
        event.agent_name = event.agent_name or run[2]


# -- the events in the run's own event stream (module docstring) ------------------------------


@dataclass(kw_only=True)
class ContextManagerEvent(CapabilityEvent, namespace="compact_agent"):
    """One of the manager's events in the run's stream (kind "compact_agent.context_manager"):
    `event` is the `Event` its `event_handler` is given (a `CompactionEvent`, a `BudgetEvent`, ...)."""

    event: Event


@dataclass(kw_only=True)
class CompactionStartedEvent(CapabilityEvent, namespace="compact_agent", dispatch="immediate"):
    """A compaction of the run begins (kind "compact_agent.compaction_started"): `trigger` ("auto",
    "reactive", ...), `tokens_before` the request it compacts. Its end is the next `ContextManagerEvent`
    whose `event` is a `CompactionEvent` (done, "failed" or "blocked") of its conversation; the
    compaction's other events (the thrash guard's `escalate`, a failed hook's) may come between."""

    trigger: str
    tokens_before: int
    conversation_id: str | None = None


class RunStream:
    """The manager's events waiting for the run's stream (the module docstring says how). `ctx` is the context
    of the model-request hook in progress, which the compaction's start is emitted with."""

    def __init__(self) -> None:
        self.running = False
        self.ctx: RunContext[Any] | None = None
        self.waiting: list[Event] = []
        self.errors = 0  # listeners of `CompactionStartedEvent` that raised (logged, never into the compaction)

    def start(self) -> None:
        self.running, self.ctx, self.waiting = True, None, []

    def stop(self) -> None:
        self.running, self.ctx, self.waiting = False, None, []

    def put(self, event: Event) -> None:
        if self.running:
            self.waiting.append(event)

    async def send(self, ctx: RunContext[Any]) -> None:
        """Emit what waits into the run's stream, in the order it happened; `ctx` is the hook's."""
        self.ctx = ctx
        while self.running and self.waiting:
            if not await self._emit(ctx, ContextManagerEvent(event=self.waiting.pop(0))):
                return

    async def started(self, trigger: str, tokens_before: int, conversation_id: str | None) -> None:
        """What waits, then a compaction's start, where a hook of the run is in progress; a listener
        that raises is logged, and the compaction goes on (watching must not change what happens)."""
        ctx = self.ctx
        if ctx is None or not self.running:
            return
        await self.send(ctx)
        if not self.running:
            return
        try:
            await self._emit(ctx, CompactionStartedEvent(trigger=trigger, tokens_before=tokens_before,
                                                         conversation_id=conversation_id))
        except Exception as e:  # noqa: BLE001 - a listener's failure is its own
            self.errors += 1
            log.warning("an on_event listener raised on a compaction's start (%s); the compaction goes on",
                        one_line(e))

    async def _emit(self, ctx: RunContext[Any], event: CapabilityEvent) -> bool:
        try:
            await ctx.emit(event)
        except UserError as e:  # a context with no stream to emit into (a durable execution's unit)
            log.debug("the run's event stream takes no events here (%s): the event handler alone has them",
                      one_line(e))
            self.stop()
            return False
        return True
