"""Layer 3: microcompact. Old results of re-runnable tools are cleared, in batches.

Results of `read_file`, `bash`, `grep`, ... are big and cheap to get again, so once they are old the
model loses little when their content becomes "[Old tool result content cleared]". The call and
its arguments stay, so the model still knows what it did and can re-run it.

When to clear is a cache question, not a size question. Clearing an old result rewrites the
prompt from that point on, which throws away the provider's cached prefix. So we clear, always all
the candidates at once (every compactable result but the newest `microcompact_keep_recent`, those
the model has not seen yet and, with the model's prices known, those it is still reaching back
into: `Budget.hot`; a result a compaction kept for the model, priced or not, while it is in use),
only:

* (time) when the cache has expired anyway: the newest response is older than the cache TTL, so
  the next request re-reads the whole prefix at full price whatever we do;
* (priced) with the model's prices known (`Budget.prices`, the default): when what the batch
  removes from every request until the next compaction pays for the prompt re-sent from the first
  cleared result on and for the look-agains it causes (`Budget.rewrite_pays`, economics.py and
  reuse.py);
* (count) with no prices (`Prices(known=False)`, `priced_compaction = false`): when there are more
  than `microcompact_trigger` live results and the batch frees at least
  `microcompact_min_free_tokens` (at most a tenth of the threshold).
  Measured on real transcripts, a window sliding one result at a time costs more than never
  compacting; a batch pays the cache miss once and then stays stable for many requests.

The trigger is kept with each cleared id (`cleared`) and in the result's metadata mark and the
`microcompact` event. A compaction that keeps a cleared result for the model lifts its clearing
(`keep_whole`), and only its own results': one an earlier compaction kept stays as it is sent.
Which clearings of a kept result were made once it was kept is kept too (`cleared_kept`): any other
clearing of a result marked kept was made before the compaction that kept it, and saved before that
compaction lifted it (a crash between the history's rewrite and the save of the layers' state), so
it is lifted when the result is next sent.
Tests: tests/context/test_microcompact.py (time, count, server side, frozen decisions),
tests/context/test_forgetting.py (the priced trigger and the results in use),
tests/context/test_kept_result_sent_whole.py (the results a compaction keeps),
tests/context/test_layer_properties.py (the invariants every layer keeps).

With `server_side=True` nothing is cleared here: the caller sends `anthropic_context_management`
instead and Anthropic clears on its side.
"""

from __future__ import annotations

import copy
from collections.abc import Collection
from dataclasses import replace
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolReturnPart

from ..plumbing import history_state, tokens
from ..plumbing.cache import cache_expired
from ..plumbing.events import Budget, Event, LayerResult, Stopwatch
from ..plumbing.markers import is_kept_result, mark
from ..plumbing.result_text import result_lines
from ..plumbing.settings import CompactionSettings as Settings

LAYER = "microcompact"
CLEARED = "[Old tool result content cleared]"
COMPACTABLE = frozenset({"read_file", "bash", "grep", "glob", "edit_file", "write_file"})
ANTHROPIC_BETA = "context-management-2025-06-27"




def anthropic_context_management(
    settings: Settings, *, trigger_tokens: int = 100_000, exclude_tools: list[str] | None = None,
    threshold: int | None = None,
) -> dict[str, Any]:
    """The `context_management` request body for Anthropic's server-side tool-result clearing.

    Send it with the `anthropic-beta: context-management-2025-06-27` header (`ANTHROPIC_BETA`).
    `trigger_tokens` defaults to Anthropic's own default; pass the auto-compact threshold's share
    the caller wants. `clear_at_least` mirrors the local min-free rule for the same cache reason: at
    most a tenth of the `threshold` when given (20K of a 32K window's threshold was never there to
    clear, and with the local layer handing clearing to the server nothing cleared old results).
    """
    least = settings.microcompact_min_free_tokens
    edit: dict[str, Any] = {
        "type": "clear_tool_uses_20250919",
        "trigger": {"type": "input_tokens", "value": trigger_tokens},
        "keep": {"type": "tool_uses", "value": settings.microcompact_keep_recent},
        "clear_at_least": {"type": "input_tokens", "value": least if threshold is None else min(least, threshold // 10)},
    }
    if exclude_tools:
        edit["exclude_tools"] = list(exclude_tools)
    return {"edits": [edit]}


class Microcompact:
    """L3: clear old compactable tool results on a cache-expiry or a batched count trigger.

    State: `cleared`, {tool_call_id: "time" | "priced" | "count"}. A cleared id is rendered the same way on
    every later request, which keeps the new prefix stable once it has been paid for. `cleared_kept`:
    those of them cleared while the result was one a compaction kept (marked so).
    """

    name = LAYER

    def __init__(self, settings: Settings, compactable: frozenset[str] = COMPACTABLE, *,
                 server_side: bool = False) -> None:
        self.settings = settings
        self.compactable = compactable
        self.server_side = server_side
        self.cleared: dict[str, str] = {}
        self.cleared_kept: set[str] = set()

    def state_to_json(self) -> dict[str, Any]:
        kept = {"cleared_kept": sorted(self.cleared_kept)} if self.cleared_kept else {}
        return {"cleared": dict(sorted(self.cleared.items())), **kept}

    def load_state(self, d: dict[str, Any]) -> None:
        self.cleared = dict(d.get("cleared", {}))
        self.cleared_kept = {str(k) for k in d.get("cleared_kept", [])}

    def scratch(self) -> Microcompact:
        """A copy that decides as this layer would and keeps what it decides to itself (a look at
        the next request's view: /context, the toolbar)."""
        twin = copy.copy(self)
        twin.cleared, twin.cleared_kept = dict(self.cleared), set(self.cleared_kept)
        return twin

    def forget_absent(self, messages: list[ModelMessage]) -> None:
        """After a compaction: forget clearings of results that are gone for good (the state is
        saved with every request and would otherwise grow with the session's length)."""
        present = {p.tool_call_id for m in messages if isinstance(m, ModelRequest)
                   for p in m.parts if isinstance(p, ToolReturnPart)}
        self.cleared = {k: v for k, v in self.cleared.items() if k in present}
        self.cleared_kept &= present

    def keep_whole(self, call_ids: Collection[str]) -> None:
        """A compaction keeps these results for the model, which is still using them (compaction/keep.py
        `kept_results`): their clearing is lifted, so the copy kept goes out whole, as the compaction
        measured it, not as the placeholder (layers/frozen.py `keep_whole`: on a copy to measure it,
        then once it goes ahead, whose rewritten prefix is paid for anyway). A result an earlier
        compaction kept, cleared since it went out of use, is not among them and stays cleared."""
        for call_id in call_ids:
            self.cleared.pop(call_id, None)
            self.cleared_kept.discard(call_id)

    def apply(self, messages: list[ModelMessage], budget: Budget) -> LayerResult:
        watch = Stopwatch()
        if self.server_side:
            return LayerResult(messages=list(messages))
        last_resp = max((i for i, m in enumerate(messages) if isinstance(m, ModelResponse)), default=-1)
        results: list[tuple[int, ToolReturnPart]] = [
            (i, p)
            for i, m in enumerate(messages)
            if isinstance(m, ModelRequest)
            for p in m.parts
            if isinstance(p, ToolReturnPart) and p.tool_name in self.compactable
            and not history_state.state_return(p)  # a search's or a load's, which pydantic-ai reads back
        ]
        marked = {p.tool_call_id for i, p in results if is_kept_result(messages[i])}  # kept by a compaction
        for call_id in marked - self.cleared_kept:  # cleared before it was kept: lifted (module docstring)
            self.cleared.pop(call_id, None)
        keep_n = max(0, self.settings.microcompact_keep_recent)
        kept = {p.tool_call_id for _, p in results[len(results) - keep_n :]} if keep_n else set()
        # Live: not cleared yet and big enough that the marker is a saving (tiny results never count).
        live = [(i, p) for i, p in results if p.tool_call_id not in self.cleared and self._saving(p) > 0]
        # Results after the last response have not been seen by the model: never clear those; nor,
        # priced, results the model is still reaching back into (reuse.py); nor, priced or not, one a
        # compaction kept for the model while it still uses it (cleared, the model had the placeholder
        # where the compaction had kept and sized the result).
        hot = budget.hot if budget.prices is not None else None
        in_use = budget.hot
        candidates = [p for i, p in live if p.tool_call_id not in kept and i < last_resp
                      and not (hot is not None and hot(p.tool_call_id))
                      and not (in_use is not None and p.tool_call_id in marked and in_use(p.tool_call_id))]

        trigger = ""
        chosen: list[ToolReturnPart] = []
        if candidates and last_resp >= 0:
            if cache_expired(messages, budget.now, budget.cache_ttl_s):  # the newest response is last_resp
                trigger, chosen = "time", candidates
            elif budget.prices is not None:
                if self._pays(messages, candidates, budget):
                    trigger, chosen = "priced", candidates
            elif len(live) > self.settings.microcompact_trigger:
                need = min(self.settings.microcompact_min_free_tokens, budget.threshold // 10)
                if sum(self._saving(p) for p in candidates) >= need:
                    trigger, chosen = "count", candidates
        for p in chosen:
            self.cleared[p.tool_call_id] = trigger
        self.cleared_kept |= marked & {p.tool_call_id for p in chosen}

        before = tokens.estimate(messages)
        out = [self._render(m) for m in messages]
        after = tokens.estimate(out)
        events = []
        if chosen:
            events.append(
                Event(layer=LAYER, action="clear", tokens_before=before, tokens_after=after,
                      ids=[p.tool_call_id for p in chosen], trigger=trigger, duration_ms=watch.ms(),
                      detail={"cleared": len(chosen), "live_before": len(live), "kept_recent": len(kept)},
                      time=budget.now.isoformat())
            )
        return LayerResult(messages=out, tokens_freed=max(0, before - after), events=events)

    def _pays(self, messages: list[ModelMessage], candidates: list[ToolReturnPart], budget: Budget) -> bool:
        """Clear the batch when what it removes from every request until the next compaction
        (which the clearing itself postpones) earns back the prompt re-sent from the first cleared
        result on, and the look-agains for what the model will still want from the newest cleared
        result back (economics.py, reuse.py)."""
        ids = {p.tool_call_id for p in candidates}
        holders = [i for i, m in enumerate(messages) if isinstance(m, ModelRequest)
                   and any(isinstance(p, ToolReturnPart) and p.tool_call_id in ids for p in m.parts)]
        return budget.rewrite_pays(tokens.estimate(messages[holders[0]:]), sum(self._saving(p) for p in candidates),
                                   depth_est=tokens.estimate(messages[holders[-1] + 1:]), kind="cold_result")

    @staticmethod
    def _saving(part: ToolReturnPart) -> int:
        return tokens.part_tokens(part) - tokens.part_tokens(replace(part, content=CLEARED))

    def _render(self, message: ModelMessage) -> ModelMessage:
        if not isinstance(message, ModelRequest):
            return message
        parts = list(message.parts)
        changed = False
        for k, p in enumerate(parts):
            if isinstance(p, ToolReturnPart) and p.tool_call_id in self.cleared:
                # The placeholder's one line is not the result's: a digest of the round says the result's.
                info = {"trigger": self.cleared[p.tool_call_id], "lines": result_lines(p)}
                parts[k] = replace(p, content=CLEARED, metadata=mark(p.metadata, LAYER, info))  # type: ignore[arg-type]  # a cleared result is text, whatever its kind
                changed = True
        return replace(message, parts=parts) if changed else message
