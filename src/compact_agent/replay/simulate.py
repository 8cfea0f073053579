"""Replay a recorded transcript request by request through a compaction strategy.

A *request point* is each recorded `ModelResponse`. At each point the strategy holds its own
persisted history (it starts empty); the transcript's messages since the previous point are
appended to it, the strategy shapes or compacts it and returns what it would send, and then the
recorded response is appended. The responses are the recorded ones whatever was sent: the replay
measures what each strategy would have cost and kept, not what a model would have answered.

Transcripts omit the tool definitions (most omit the system prompt too), and our chars/4 estimate
is not the provider's tokenizer, so the recorded prompt sizes are fitted per transcript as
``recorded ≈ ratio × estimate + overhead`` over the requests before the agent's own first
compaction (sizing.py's :func:`calibrate`). Every simulated request is sized with that fit, for every
strategy alike, and the fit's error is reported. Where a transcript does record its opening system
prompt (Codex's instructions and developer messages, SWE-agent's and mini-swe-agent's system
message), that prompt is the agent's fixed prompt, as its tools are: every agent sends its own with
every request, whatever its compaction did to the conversation. So it is replayed as part of the
overhead (sizing.py's :func:`fixed_prompt`), sent and cached with every request of every strategy, and the
strategies see the conversation after it.

Cost follows the providers' prompt caching: the cached part of a request is its longest common
prefix, message by message (compared by serialized bytes), with the previous request sent on the
same system prompt within the cache TTL; the system prompt and tools count as cached when such a
previous request exists. Where the first differing message starts with parts equal to the previous
one's (a request that appends a prompt after the last tool results, or clears a later result of
the same message), those parts count as cached too: providers cache by byte prefix and send each
tool result as its own message or content block, so what comes before a change stays as it was.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
)

from ..context.compaction.cuts import join
from ..context.plumbing import tokens
from ..models import ModelInfo
from .importers import Transcript
from .recall import (
    REREAD_OUTPUT,
    Needs,
    Recall,
    ViewText,
    lines_kept,
    missing,
    needs_of,
    reread_source_tokens,
)
from .retention import Retention, Truth, message_text, retention_of
from .sizing import (  # the sizes of what is replayed: its own module, named here for the callers
    OVERHEAD_CAP,
    TokenModel,
    calibrate,
    describe_fit,
    fixed_prompt,
    output_tokens,
    recorded_points,
    replay_messages,
)

__all__ = [
    "OVERHEAD_CAP", "PromptCache", "Request", "SideCall", "Sim", "Step", "Strategy", "StrategyFactory",
    "StrategyRun", "Summarize", "TokenModel", "TranscriptRun", "calibrate", "describe_fit", "fixed_prompt",
    "output_tokens", "recorded_points", "replay", "replay_all", "replay_messages", "same_message", "view_text",
]

Summarize = Callable[[list[ModelMessage], str], Awaitable[str]]


# -- what strategies return ---------------------------------------------------------------------------
@dataclass
class SideCall:
    """A request a strategy makes for itself (a summary, a verification probe)."""

    messages: list[ModelMessage]
    output_text: str
    prompt_key: str  # "main": same system prompt and tools as the conversation; else its own
    overhead: int | None = None  # None: the conversation's overhead; else this call's own
    kind: str = "summary"  # "summary" | "probe" | "notes"


@dataclass
class Step:
    """What a strategy did at one request point."""

    view: list[ModelMessage]
    compacted: bool = False
    failed: bool = False
    side_calls: list[SideCall] = field(default_factory=list)
    freed: dict[str, int] = field(default_factory=dict)  # view layers: removed from this request
    compaction_freed: int = 0  # tokens before − after of a compaction at this point


class Strategy(Protocol):
    name: str

    async def step(self, history: list[ModelMessage], sim: Sim) -> Step:
        """Shape (and possibly rewrite in place) the persisted `history`; return what is sent."""
        ...

    async def observe(self, sent_tokens: int, output: int, response: ModelResponse) -> None:
        """The request was sent with `sent_tokens` input tokens and answered by `response` (`output` tokens)."""
        ...


@dataclass
class Sim:
    """Everything a strategy may know about the replay: window, sizes, the summarizer, the clock."""

    window: int
    tm: TokenModel
    summarize: Summarize
    max_output: int = 8_192
    provider: str = "deepseek"
    cache_ttl_s: float = 3600.0
    now: datetime | None = None
    transcript: Transcript | None = None
    added: list[ModelMessage] = field(default_factory=list)  # transcript messages since the last point
    model: Any = None  # the real model behind `summarize` (`--model`), for requests a strategy makes itself
    prices: ModelInfo | None = None  # the prices `analyze --prices` gave; None: the provider's (models.PRICING)


# -- the prompt cache ----------------------------------------------------------------------------------
def same_message(a: ModelMessage, b: ModelMessage) -> bool:
    """Whether two messages serialize to the same bytes: identical objects, or equal field by field
    (the layers re-render unchanged messages as new but equal objects on every request)."""
    return a is b or a == b


@dataclass
class _Sent:
    messages: list[ModelMessage]
    time: datetime | None


@dataclass
class PromptCache:
    """Remembers the previous request per system prompt and prices the next one against it."""

    tm: TokenModel
    ttl_s: float
    previous: dict[str, _Sent] = field(default_factory=dict)

    def send(self, messages: Sequence[ModelMessage], key: str, overhead: int, when: datetime | None) -> tuple[int, int]:
        """Record a request; return its (input, cached input) tokens."""
        sizes = [tokens.message_tokens(m) for m in messages]
        size = overhead + round(self.tm.ratio * sum(sizes))
        prev = self.previous.get(key)
        self.previous[key] = _Sent(list(messages), when)
        if prev is None or (when and prev.time and (when - prev.time).total_seconds() > self.ttl_s):
            return size, 0
        k = 0
        for a, b in zip(messages, prev.messages, strict=False):
            if not same_message(a, b):
                break
            k += 1
        common = sum(sizes[:k])
        if k < min(len(messages), len(prev.messages)):
            common += _extended_prefix(messages[k], prev.messages[k])
        return size, min(size, overhead + round(self.tm.ratio * common))


def _extended_prefix(new: ModelMessage, old: ModelMessage) -> int:
    """Estimated tokens of the leading parts `new` and `old` share (the message's own overhead
    with them): providers cache by byte prefix, and each part is its own content block."""
    if type(new) is not type(old):
        return 0
    n = 0
    for a, b in zip(new.parts, old.parts, strict=False):
        if a != b:
            break
        n += 1
    return tokens.PER_MESSAGE_OVERHEAD + sum(tokens.part_tokens(p) for p in old.parts[:n]) if n else 0


# -- results -------------------------------------------------------------------------------------------
@dataclass(slots=True)  # one per request and strategy: a whole history holds millions
class Request:
    """One request a strategy sent (its main requests and its side calls alike)."""

    kind: str  # "main", a side call ("summary" | "probe" | "notes"), or "reread": a stall's look-again
    tokens: int
    cached: int
    output: int
    over_window: bool = False
    rebuild: bool = False  # the first main request after a compaction: its uncached part is the rebuild


@dataclass
class StrategyRun:
    strategy: str
    transcript: str
    window: int
    requests: list[Request] = field(default_factory=list)
    series: list[int] = field(default_factory=list)  # input tokens per main request
    compaction_points: list[int] = field(default_factory=list)  # main-request indices that compacted
    failed_compactions: int = 0
    freed: dict[str, int] = field(default_factory=dict)  # view layers: summed over requests
    compaction_freed: int = 0
    retention: list[Retention] = field(default_factory=list)
    recall: Recall = field(default_factory=Recall)

    @property
    def over_window(self) -> int:
        return sum(1 for r in self.requests if r.kind == "main" and r.over_window)


@dataclass
class TranscriptRun:
    transcript: Transcript
    tm: TokenModel
    runs: list[StrategyRun]
    points: int


def view_text(messages: Sequence[ModelMessage]) -> str:
    """Everything the model reads in a view, whitespace-normalised, for retention checks."""
    return " ".join(" ".join(message_text(m).split()) for m in messages)


async def replay(transcript: Transcript, strategy: Strategy, sim: Sim, messages: list[ModelMessage] | None = None,
                 needs: Needs | None = None) -> StrategyRun:
    """Run one strategy over one transcript; see the module docstring for the protocol. `messages`
    and `needs` (what each point needs, `recall.needs_of`) are computed here when not given."""
    messages = replay_messages(transcript) if messages is None else messages
    needs = needs_of(messages) if needs is None else needs
    texts = ViewText()
    cache = PromptCache(sim.tm, sim.cache_ttl_s)
    run = StrategyRun(strategy.name, str(transcript.source), sim.window)
    history: list[ModelMessage] = []
    truth = Truth(harness=transcript.harness_texts)
    seen = observed = 0
    pending_retention = False
    for r, response in enumerate(messages):
        if not isinstance(response, ModelResponse):
            continue
        history.extend(messages[seen:r])
        sim.now = response.timestamp
        sim.added = messages[observed:r]  # what the transcript added, its previous response included
        observed = r
        truth.add(sim.added)
        step = await strategy.step(history, sim)
        for call in step.side_calls:
            overhead = sim.tm.overhead if call.overhead is None else call.overhead
            size, cached = cache.send(call.messages, call.prompt_key, overhead, sim.now)
            run.requests.append(Request(call.kind, size, cached, sim.tm.text(call.output_text)))
        view = join(step.view)
        out = output_tokens(response, sim.tm)
        size, cached = cache.send(view, "main", sim.tm.overhead, sim.now)
        run.requests.append(Request("main", size, cached, out, size > sim.window, rebuild=step.compacted))
        need = needs.by_point.get(r)
        if need is not None:
            sent = texts.of(view)
            lost_refs, lost_edits = missing(need, sent)
            run.recall.add(Recall(refs=len(need.refs), refs_kept=len(need.refs) - len(lost_refs),
                                  lines_kept=lines_kept(need, sent), edits=len(need.edits),
                                  edits_kept=len(need.edits) - len(lost_edits), stalls=int(bool(lost_refs or lost_edits))))
            if lost_refs or lost_edits:  # the look-again: this request again plus what it reads, uncached
                source = reread_source_tokens(need, lost_refs + lost_edits, needs.source_tokens)
                run.requests.append(Request("reread", size + round(sim.tm.ratio * source), cached, REREAD_OUTPUT))
        if step.compacted:
            run.compaction_points.append(len(run.series))
            run.compaction_freed += step.compaction_freed
            pending_retention = True
        if step.failed:
            run.failed_compactions += 1
        if pending_retention and truth.users:
            run.retention.append(retention_of(truth, view_text(view)))
            pending_retention = False
        run.series.append(size)
        for layer, n in step.freed.items():
            run.freed[layer] = run.freed.get(layer, 0) + round(sim.tm.ratio * n)
        await strategy.observe(size, out, response)
        history.append(response)
        seen = r + 1
    return run


StrategyFactory = Callable[[Sim], Strategy]


async def replay_all(transcript: Transcript, factories: dict[str, StrategyFactory], *, window: int,
                     summarize: Summarize, max_output: int, provider: str, cache_ttl_s: float,
                     tm: TokenModel | None = None, model: Any = None, prices: ModelInfo | None = None
                     ) -> TranscriptRun:
    """Every strategy over one transcript, each with a fresh state and the same token model."""
    tm = tm or calibrate(transcript)
    messages = replay_messages(transcript)
    needs = needs_of(messages)
    runs: list[StrategyRun] = []
    for factory in factories.values():
        sim = Sim(window, tm, summarize, max_output, provider, cache_ttl_s, transcript=transcript, model=model,
                  prices=prices)
        strategy = factory(sim)
        try:
            runs.append(await replay(transcript, strategy, sim, messages, needs))
        finally:
            closer = getattr(strategy, "close", None)
            if closer is not None:
                closer()
    points = sum(1 for m in transcript.messages if isinstance(m, ModelResponse))
    return TranscriptRun(transcript, tm, runs, points)
