"""What the model keeps using from earlier context: the measured price of forgetting.

Dropping context is cheap only if the model does not need it again. Each response says what it
used: the distinctive tokens of its text and tool-call arguments (paths, dotted or underscored
names, camelCase names, hexadecimal ids) and the old text of its edits. Those that occur in the
history before the previous response (what arrived since is in every request anyway) were reached
back for. The newest message holding such an item tells how far back the model reached: the
tokens from that message to the end of the history; when it is a tool result, that result is in
use (`hot`), and a compaction keeps it. `Reuse` keeps that depth for the session's
recent responses, so a decision that would drop everything deeper than some depth can ask how
often the model has reached that far (`stall_rate`), and price each time as a stall: the model
looks again, one more request of about the current size, mostly cached, plus the source read again
uncached (`stall_cost`). A context whose old content is still in use does not pay to drop; a
stretch the model has finished with does.

The analyzer (`replay/recall.py`) measures recall with the same rules, so what the pipeline
expects to lose and what the replay counts as lost agree.
"""

from __future__ import annotations

import bisect
import re
from collections import deque
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart, ToolReturnPart, UserPromptPart

from ..compaction.ledger import call_args, changed_files
from ..plumbing import tokens
from ..plumbing.markers import is_compaction_message, is_kept_result
from .economics import Prices

__all__ = ["Reach", "Reuse", "edit_texts", "kept_at_compaction", "norm", "part_texts", "references"]

MIN_REF = 8
MIN_CAMEL = 6
MIN_EDIT = 20
RECENT = 30
"""Responses that count: the session's current stretch of work, not its whole past."""
SOURCE_PRIOR_TOKENS = 2_000
"""What a look-again is assumed to read before one has been seen: a file of ~200 lines."""
REREAD_OUTPUT = 60
"""Output tokens of the tool call a look-again sends (a read or grep with its path)."""
ASSUMED_ROUND_TRIP_S = 5.0
"""The round trip the configured price of the user's wait (`stall_wait_usd`) stands for: a short
request and its tool call. Once the session has timed its own requests, the wait is priced by
their median instead (`Reuse.wait_usd`)."""
PRIOR_REACHED = 1.0
PRIOR_RESPONSES = 2.0
"""The prior of a stall rate, as pseudo-counts (reached that far, responses): the rule of
succession, (k+1)/(n+2). Measured over the recorded sessions whose text can be read
(`benchmarks/stall_calibration.py`), it predicts the next response reaching past a shallow depth
(1-8K) better than Jeffreys' prior, (k+½)/(n+1), which predicts deep ones (16-32K) better: where
none of the recent responses had reached past 4K, 16% of the next did (succession 9%, Jeffreys
5%). Neither is better throughout; the one that forgets less stays. (Sessions replayed on filler
for redacted text reach back for nothing, so they favour any smaller prior and are left out.)"""
RARE_EVIDENCE = 100
"""Responses a reach into a result never cited again (`cold_result`, what microcompact would clear) is
measured over: such reaches are rare, and over 30 responses the rule of succession never put their
chance below 1/32, which at the default wait price outweighed holding ~20K tokens of stale build logs
at DeepSeek's hit price (microcompact never cleared them). Over the last 100 its log-loss on the
recorded sessions whose text can be read is lower at every depth from 1K to 32K (0.545 -> 0.539 at 1K,
0.129 -> 0.123 at 32K, `benchmarks/stall_calibration.py --kind cold_result`); for the other kinds it
is higher (`any` 0.452 -> 0.466 at 16K), so they keep the recent 30."""
MAX_SPAN = 400
"""Requests `Reuse.stall_rate_over` averages over at most."""
MAX_WAIT_SCALE = 12.0
"""A minute per round trip at most: a request that hung until a timeout says little about the next."""

KINDS: tuple[str, ...] = ("any", "result", "cold", "cold_result")
"""What a reach counts over (`Reach`): every item, items held by tool results, items a compaction
would not keep (held neither by a result in use nor by a user's message), and those of them held by
tool results."""

_RUN = re.compile(r"[\w./-]+")
_CAMEL = re.compile(r"\b[A-Za-z][a-z0-9]*[a-z][A-Z][A-Za-z0-9]*\b")
_HEX = re.compile(r"\b[0-9a-fA-F]{10,}\b")
_GUTTER = re.compile(r"(?m)^[ \t]*\d+(?:→|\t)")
_EDIT_KEYS = ("old_string", "old_str")
_HUNK_SPLIT = re.compile(r"(?m)^(?:@@.*|\*\*\* .*)$")


def norm(text: str) -> str:
    """What the model reads, for presence checks: line-number gutters of file reads (`  12→`,
    `  12<tab>`) off, so a multi-line edit matches the read it came from; whitespace collapsed."""
    return " ".join(_GUTTER.sub("", text).split())


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)):
        return " ".join(_text(c) for c in content)
    return "" if content is None else str(content)


def arg_values(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from arg_values(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from arg_values(v)


def part_texts(m: ModelMessage) -> list[tuple[bool, str]]:
    """(is a tool result, normalised text) per part; tool-call arguments by their values, unescaped."""
    out: list[tuple[bool, str]] = []
    for p in m.parts:
        if isinstance(p, ToolCallPart):
            text = p.tool_name + " " + " ".join(arg_values(call_args(p)))
        else:
            text = _text(getattr(p, "content", ""))
        out.append((isinstance(p, ToolReturnPart), norm(text)))
    return out


def references(text: str) -> list[str]:
    """The distinctive tokens of `text` in order of first appearance: runs of word characters, `.`,
    `/` and `-` of 8+ characters holding `.`, `/` or `_`; camelCase names of 6+; hexadecimal ids of
    10+ digits mixing letters and digits. A name inside a longer one counts once."""
    found: list[str] = []
    for run in _RUN.findall(text):
        token = run.strip(".-")
        if len(token) >= MIN_REF and any(c in token for c in "./_") and not token.replace(".", "").isdigit():
            found.append(token)
    found += [t for t in _CAMEL.findall(text) if len(t) >= MIN_CAMEL]
    found += [t for t in _HEX.findall(text) if not t.isdigit() and not t.isalpha()]
    unique = list(dict.fromkeys(found))
    return [t for t in unique if not any(t != u and t in u for u in unique)]


def edit_texts(response: ModelResponse) -> list[str]:
    """The old text of every edit the response makes (`old_string` / `old_str`, MultiEdit's edits,
    each `apply_patch` hunk's context and removed lines), normalised, 20+ characters."""
    out: list[str] = []
    for p in response.parts:
        if not isinstance(p, ToolCallPart):
            continue
        args = call_args(p)
        olds: list[str] = []
        if isinstance(args, dict):
            olds += [v for k in _EDIT_KEYS if isinstance(v := args.get(k), str)]
            for e in args.get("edits") or []:
                if isinstance(e, dict) and isinstance(v := e.get("old_string"), str):
                    olds.append(v)
            patch = (args.get("input") or args.get("patch")) if p.tool_name.lower() == "apply_patch" else None
            if isinstance(patch, str):
                olds += _patch_olds(patch)
        elif p.tool_name.lower() == "apply_patch" or args.lstrip().startswith("*** Begin Patch"):
            olds += _patch_olds(args)
        out += [n for o in olds if len(n := norm(o)) >= MIN_EDIT]
    return list(dict.fromkeys(out))


def _patch_olds(patch: str) -> list[str]:
    olds: list[str] = []
    for hunk in _HUNK_SPLIT.split(patch):
        lines = [ln[1:] for ln in hunk.splitlines() if ln[:1] in (" ", "-") and not ln.startswith("---")]
        if lines:
            olds.append("\n".join(lines))
    return olds


def used_items(response: ModelResponse, tools: Collection[str] = ()) -> list[str]:
    """What a response may have taken from earlier context: its references and its edits' old
    text. The names of tools (`tools`, and those it calls) are no such thing: every request
    carries the tool definitions."""
    names = {*tools, *(p.tool_name for p in response.parts if isinstance(p, ToolCallPart))}
    refs = [r for r in references(" ".join(t for _, t in part_texts(response))) if r not in names]
    return refs + edit_texts(response)


def kept_at_compaction(history: Sequence[ModelMessage]) -> tuple[frozenset[str], int]:
    """The call ids of the results `history` holds marked kept, which count as reached at its newest
    compaction, and the index after which they are (the last of them, or the newest compaction's message
    if later; -1: none).

    A compaction drops what it summarises, so every marked result left was not summarised by the
    newest one: the results it kept (after its message), and those an earlier compaction kept that it
    left verbatim, such as the part before a `/compact --from` message, whose responses that used
    them it summarised away."""
    start = next((i for i in range(len(history) - 1, -1, -1) if is_compaction_message(history[i])), None)
    if start is None:
        return frozenset(), -1
    held = [(i, p.tool_call_id) for i in range(len(history)) if is_kept_result(history[i])
            for p in history[i].parts if isinstance(p, ToolReturnPart)]
    if not held:
        return frozenset(), -1
    return frozenset(call_id for _, call_id in held), max(start, *(i for i, _ in held))


@dataclass(frozen=True)
class Reach:
    """How far back one response reached: estimated tokens from the newest message holding its
    deepest needed item to the end of the history (0: it needed nothing from before)."""

    deepest: int = 0
    deepest_result: int = 0  # the same over items whose newest holder is a tool result
    deepest_cold: int = 0  # over items a compaction would not keep: not in a result in use nor a user's message
    deepest_cold_result: int = 0  # over items held by a result not yet in use (microcompact spares the others)

    def depth(self, kind: str) -> int:
        """"any", "result", "cold" or "cold_result" (see the fields)."""
        return {"any": self.deepest, "result": self.deepest_result, "cold": self.deepest_cold,
                "cold_result": self.deepest_cold_result}[kind]


@dataclass
class Reuse:
    """The reaches of the session's recent responses, and the size of what a look-again reads."""

    recent: int = RECENT
    reaches: deque[Reach] = field(default_factory=deque)
    source_total: int = 0
    sources: int = 0
    responses: int = 0  # responses observed
    cited: dict[str, int] = field(default_factory=dict)  # tool call id -> the response that last reached it
    tools: set[str] = field(default_factory=set)  # names of the tools called so far
    changed: set[str] = field(default_factory=set)  # files the model has changed so far
    edits: deque[bool] = field(default_factory=deque)  # recent changes of a file: was it changed before?
    round_trips: deque[float] = field(default_factory=deque)  # seconds of the recent model requests
    _memo: dict[int, tuple[ModelMessage, list[tuple[bool, str]], int]] = field(default_factory=dict, repr=False)

    def observe(self, history: Sequence[ModelMessage]) -> Reach:
        """Measure the newest response of `history` (its last message) against what came before."""
        if not history or not isinstance(history[-1], ModelResponse):
            return Reach()
        response = history[-1]
        prev = next((i for i in range(len(history) - 2, -1, -1) if isinstance(history[i], ModelResponse)), -1)
        memo = self._texts(history[:-1])
        fresh = " ".join(t for _, texts, _ in memo[prev + 1:] for _, t in texts)
        deep: dict[str, int] = dict.fromkeys(KINDS, 0)
        cited: list[str] = []
        self.tools.update(p.tool_name for p in response.parts if isinstance(p, ToolCallPart))
        for path in changed_files([response], carried=False):
            self.edits.append(path in self.changed)
            self.changed.add(path)
        while len(self.edits) > self.recent:
            self.edits.popleft()
        for item in used_items(response, self.tools):
            if item in fresh:
                continue
            depth, size, is_result, call_id, typed = self._holder(item, memo, prev)
            if not depth:
                continue
            # A result in use is kept by a compaction, and what the user's messages hold too.
            cold = not (bool(call_id) and self.hot(call_id)) and not typed
            for kind, counts in zip(KINDS, (True, is_result, cold, is_result and cold), strict=True):
                if counts:
                    deep[kind] = max(deep[kind], depth)
            if is_result:
                self.source_total += size
                self.sources += 1
            if call_id:
                cited.append(call_id)
        self.responses += 1
        for call_id in cited:
            self.cited[call_id] = self.responses
        if len(self.cited) > 8 * self.recent:  # a long session: forget the results no longer in use
            self.cited = {k: v for k, v in self.cited.items() if self.responses - v < self.recent}
        reach = Reach(deep["any"], deep["result"], deep["cold"], deep["cold_result"])
        self.reaches.append(reach)
        while len(self.reaches) > RARE_EVIDENCE:
            self.reaches.popleft()
        return reach

    def learn(self, history: Sequence[ModelMessage]) -> None:
        """Measure the newest `recent` responses of a resumed conversation, oldest first, as if
        they had just arrived: a session continued after a restart keeps what it had learnt.

        The responses that made the newest compaction keep a result were summarised away: the results
        it kept, and those an earlier compaction kept that it left verbatim (before a `/compact --from`
        message), count as reached at the compaction (`kept_at_compaction`), as they were when it ran. Relearnt from the responses left, the listing a compaction kept went
        out of use at once, and microcompact sent it as its placeholder after a resume."""
        points = [i for i, m in enumerate(history) if isinstance(m, ModelResponse)][-self.recent:]
        kept, since = kept_at_compaction(history)
        for i in points:
            if kept and i > since:
                self._reached(kept)
                kept = frozenset()
            self.observe(history[: i + 1])
        self._reached(kept)

    def _reached(self, call_ids: Collection[str]) -> None:
        """The results of `call_ids` count as reached by the newest response measured."""
        for call_id in call_ids:
            self.cited[call_id] = max(self.cited.get(call_id, self.responses), self.responses)

    def returns_to_changed_files(self) -> bool:
        """Whether the model goes back to files it changed: one of its recent changes was of a
        file changed before (none yet: no evidence either way, so yes). A compaction re-reads the
        files changed since the previous one only then (compactor.py); a model that changes each
        file once and moves on would not use them."""
        return not self.edits or any(self.edits)

    def hot(self, tool_call_id: str) -> bool:
        """Whether one of the recent responses reached back into this tool result: the model is
        still using it, so a compaction should keep it (compactor.py)."""
        last = self.cited.get(tool_call_id)
        return last is not None and self.responses - last < self.recent

    def evidence(self, kind: str) -> list[Reach]:
        """The reaches a rate of `kind` is measured over: the recent responses', or for a result never
        cited again (`cold_result`) the last `RARE_EVIDENCE`'s."""
        return list(self.reaches)[-(RARE_EVIDENCE if kind == "cold_result" else self.recent):]

    def stall_rate(self, depth: int, kind: str = "any") -> float:
        """The chance that the next response needs something deeper than `depth` tokens back (of
        the `kind` of `Reach`): the share of recent responses that reached that far, by the rule of
        succession ((k+1)/(n+2), `PRIOR_REACHED`), so a session with little evidence is not assumed
        to forget nothing."""
        seen = self.evidence(kind)
        n = len(seen)
        k = sum(1 for r in seen if r.depth(kind) > depth)
        return (k + PRIOR_REACHED) / (n + PRIOR_RESPONSES)

    def time_round_trip(self, seconds: float) -> None:
        """One model request took `seconds`, from sending it to its whole answer."""
        if seconds >= 0:
            self.round_trips.append(seconds)
        while len(self.round_trips) > self.recent:
            self.round_trips.popleft()

    def wait_usd(self, configured: float) -> float:
        """What the user's wait for one look-again costs: `configured` (the value of an
        `ASSUMED_ROUND_TRIP_S` wait) scaled by the median of the session's timed requests, so a
        look-again at a local model that takes half a minute per request weighs six times as much,
        and one at an endpoint that answers at once little more than its tokens. Before any request
        is timed (and in a replay, which times none), `configured` as it is."""
        if not self.round_trips:
            return configured
        scale = sorted(self.round_trips)[len(self.round_trips) // 2] / ASSUMED_ROUND_TRIP_S
        return configured * min(scale, MAX_WAIT_SCALE)

    def stall_rate_over(self, depth: int, growth: float, requests: float, kind: str = "any") -> float:
        """The mean chance of a look-again over the next `requests` requests after dropping what
        lies deeper than `depth` tokens: what was dropped sinks by `growth` tokens a request, so a
        later response must reach further back to miss it (`stall_rate` at each request's depth)."""
        n = max(1, min(int(requests), MAX_SPAN))
        deeper = sorted(r.depth(kind) for r in self.evidence(kind))
        total = len(deeper)
        step = max(growth, 0.0)
        return (sum(total - bisect.bisect_right(deeper, depth + j * step) + PRIOR_REACHED for j in range(n))
                / (n * (total + PRIOR_RESPONSES)))

    def stall_cost(self, prices: Prices, request_tokens: int, wait_usd: float = 0.0) -> float:
        """USD of one look-again: the request sent once more (cached), the source read again
        (uncached), the short call that asks for it, and `wait_usd`, the value of the round trip
        the user waits for."""
        source = self.source_total / self.sources if self.sources else SOURCE_PRIOR_TOKENS
        return prices.cost(hits=request_tokens, resent=source, output=REREAD_OUTPUT) + wait_usd

    def forget_cost(self, prices: Prices, depth: int, request_tokens: int, kind: str = "any",
                    wait_usd: float = 0.0) -> float:
        """USD per request of the stalls that dropping everything (of `kind`) deeper than `depth`
        would cause."""
        return self.stall_rate(depth, kind) * self.stall_cost(prices, request_tokens, wait_usd)

    # -- helpers --------------------------------------------------------------------------------
    def _texts(self, messages: Sequence[ModelMessage]) -> list[tuple[ModelMessage, list[tuple[bool, str]], int]]:
        out = []
        for m in messages:
            hit = self._memo.get(id(m))
            if hit is None or hit[0] is not m:
                hit = (m, part_texts(m), tokens.message_tokens(m))
                self._memo[id(m)] = hit
            out.append(hit)
        if len(self._memo) > 2 * len(messages) + 200:  # forget messages a compaction removed
            keep = {id(m) for m in messages}
            self._memo = {k: v for k, v in self._memo.items() if k in keep}
        return out

    @staticmethod
    def _holder(item: str, memo: list[tuple[ModelMessage, list[tuple[bool, str]], int]], prev: int
                ) -> tuple[int, int, bool, str, bool]:
        """(depth, source size, is a tool result, its call id, is in a user's message) of the
        newest message up to `prev` holding `item`."""
        depth = sum(size for _, _, size in memo[prev + 1:])
        for i in range(prev, -1, -1):
            message, texts, size = memo[i]
            depth += size
            for part, (is_result, text) in zip(message.parts, texts, strict=True):
                if item in text:
                    call_id = part.tool_call_id if isinstance(part, ToolReturnPart) else ""
                    size_ = tokens.text_tokens(text) if is_result else 0
                    return depth, size_, is_result, call_id, isinstance(part, UserPromptPart)
        return 0, 0, False, "", False
