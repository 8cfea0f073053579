"""Layer 2: snip. Drop what carries no information the model still needs.

Three kinds of low-value content, decided from local evidence (nothing is lost: the content said
nothing, or is there again later), and, with the model's prices known and the cache warm, where
removing it pays for the prompt re-sent from it on (`_price`, as microcompact's clearing):

* successful tool results with no output: their call and result go together (a result cannot be
  dropped alone without breaking pairing), and only when the two messages hold nothing else;
* repeated identical reminder / system text: the newest copy stays (the head system prompt,
  the cache anchor, always stays and its later copies go instead);
* file reads superseded by a later read of the same range that returned identical content.

A message the user typed is never one of them, however short: "ok", "go on" or "yes" is what the
user said, and the model reads every such message, in order, with every request. (Short replies
used to go once answered, a handful of tokens each; the answer after one was then joined to the
answer before it — also to the session's own close of a turn that got no answer — so the model read
its reply to "go on" as part of "this turn ended before an answer", and never the words that asked.)

Structure is what makes this fiddly: removing a request can leave two responses side by side. We
only do that when the earlier response is plain text and the later has no thinking, and then merge
them into one response, so the output never has two adjacent requests or responses and is a fixed
point of `repair_messages`. Every removal leaves a marker in the metadata of the message that
absorbed it. The latest user message and everything after the last response are never touched:
the model has not acted on them yet.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextContent,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from ..plumbing import tokens
from ..plumbing.cache import cache_expired
from ..plumbing.events import Budget, Event, LayerResult, Stopwatch
from ..plumbing.markers import mark
from ..plumbing.result_text import result_lines
from ..plumbing.rounds import has_user_text

LAYER = "snip"
SUPERSEDED = "[superseded by a later read of the same unchanged file]"
NO_OUTPUT = "(no output)"

Decide = Callable[[str, str, bool], bool]  # (key, kind, evidence) -> apply?
Eligible = Callable[[int], bool]


def prompt_text(part: UserPromptPart) -> str | None:
    """The plain text of a user prompt, or None when it holds anything else (an image is content)."""
    if isinstance(part.content, str):
        return part.content
    texts: list[str] = []
    for item in part.content:
        if isinstance(item, str):
            texts.append(item)
        elif isinstance(item, TextContent):
            texts.append(item.content)
        else:
            return None
    return "".join(texts)


def _read_sig(call: ToolCallPart) -> str | None:
    args = call.args_as_dict()
    path = args.get("path", args.get("file_path"))
    if not isinstance(path, str):
        return None
    return json.dumps([path, args.get("offset"), args.get("limit")], default=str)


def _empty(part: ToolReturnPart) -> bool:
    c = part.content
    return part.outcome == "success" and (c is None or (isinstance(c, str) and not c.strip()))


def _freed(part: ToolReturnPart, content: str) -> int:
    return tokens.part_tokens(part) - tokens.part_tokens(replace(part, content=content))


def _smaller(part: ToolReturnPart, content: str) -> bool:
    return _freed(part, content) > 0


class Snip:
    """L2: remove content-free parts from the view (never a message the user typed).

    State: `snipped`, {key: kind} of every decision made. Keys are tool_call_ids for tool results
    and `kind:timestamp:text-hash:occurrence` for prompt parts, so they survive a restart and never
    point at a different message after the history is rewritten. Frozen decisions are re-applied
    without re-checking the "a later X exists" evidence, but always with the structural checks;
    except a superseded read's: a later read identical to it must still be in the history. A
    compaction that summarises the later read away (also one `--from N` that keeps the earlier read
    in its head), a rewind that undoes its turn, or a session resumed so, leaves the earlier read
    the only copy of the file: the mark lapses and the read goes out whole again, not as a pointer
    to a read the model cannot see.
    """

    name = LAYER

    def __init__(
        self,
        *,
        reminder_prefixes: Sequence[str] = ("<system-reminder>",),
        read_tools: frozenset[str] = frozenset({"read_file"}),
        keep_empty_calls_of: frozenset[str] = frozenset({"write_file", "edit_file"}),
    ) -> None:
        # A write or edit that printed nothing still changed a file; the call is the only record of
        # that change in the conversation, so those pairs stay.
        self.reminder_prefixes = tuple(reminder_prefixes)
        self.read_tools = read_tools
        self.keep_empty_calls_of = keep_empty_calls_of
        self.snipped: dict[str, str] = {}

    def state_to_json(self) -> dict[str, Any]:
        return {"snipped": dict(sorted(self.snipped.items()))}

    def scratch(self) -> Snip:
        """A copy that decides as this layer would and keeps what it decides to itself (a look at
        the next request's view: /context, the toolbar)."""
        twin = copy.copy(self)
        twin.snipped = dict(self.snipped)
        return twin

    def load_state(self, d: dict[str, Any]) -> None:
        # "ack": a message the user typed, which an earlier version left out once answered; no more.
        self.snipped = {k: v for k, v in dict(d.get("snipped", {})).items() if v != "ack"}

    def forget_absent(self, messages: list[ModelMessage]) -> None:
        """After a compaction: forget decisions about parts that are gone for good (the state is
        saved with every request and would otherwise grow with the session's length)."""
        present = {p.tool_call_id for m in messages for p in m.parts if isinstance(p, ToolCallPart | ToolReturnPart)}
        present |= set(self._prompt_keys(messages)[0].values())
        self.snipped = {k: v for k, v in self.snipped.items()
                        if (k in present if v == "duplicate_text" else all(c in present for c in k.split(",")))}

    # -- decisions -----------------------------------------------------------------------------
    def apply(self, messages: list[ModelMessage], budget: Budget) -> LayerResult:
        watch = Stopwatch()
        n = len(messages)
        last_resp = max((i for i, m in enumerate(messages) if isinstance(m, ModelResponse)), default=-1)
        latest_user = max((i for i, m in enumerate(messages) if has_user_text(m)), default=-1)

        def eligible(i: int) -> bool:
            return i < last_resp and i != latest_user

        new: dict[str, str] = {}
        swaps: dict[tuple[int, int], tuple[str, str]] = {}  # (msg, part) -> (content, kind)
        drops: dict[int, dict[int, dict[str, Any]]] = {}  # msg -> part -> removal record

        def decide(key: str, kind: str, fresh: bool) -> bool:
            if self.snipped.get(key) == kind:
                return True
            if fresh:
                new[key] = kind
            return fresh

        calls: dict[str, ToolCallPart] = {}
        returns: list[tuple[int, int, ToolReturnPart]] = []
        for i, m in enumerate(messages):
            for j, p in enumerate(m.parts):
                if isinstance(p, ToolCallPart):
                    calls[p.tool_call_id] = p
                elif isinstance(p, ToolReturnPart) and isinstance(m, ModelRequest):
                    returns.append((i, j, p))

        # Superseded reads: walk newest first, remembering what later reads of each range returned.
        later: dict[str, set[str]] = {}
        lapsed: list[str] = []  # frozen marks whose later read is gone (see the class docstring)
        for i, j, p in reversed(returns):
            call = calls.get(p.tool_call_id)
            if p.tool_name not in self.read_tools or call is None or not isinstance(p.content, str):
                continue
            sig = _read_sig(call)
            if sig is None or p.outcome != "success":
                continue
            digest = hashlib.sha256(p.content.encode()).hexdigest()
            seen_later = digest in later.get(sig, set())
            later.setdefault(sig, set()).add(digest)
            if not seen_later:
                if self.snipped.get(p.tool_call_id) == "superseded_read":
                    lapsed.append(p.tool_call_id)
                continue
            if eligible(i) and _smaller(p, SUPERSEDED) and decide(p.tool_call_id, "superseded_read", True):
                swaps[(i, j)] = (SUPERSEDED, "superseded_read")

        removed = self._empty_pairs(messages, last_resp, decide)
        removed_msgs = {i for r, q, _ in removed for i in (r, q)}
        for i, j, p in returns:
            if i in removed_msgs or not _empty(p) or not eligible(i) or not _smaller(p, NO_OUTPUT):
                continue
            if decide(p.tool_call_id, "empty_result", True):
                swaps[(i, j)] = (NO_OUTPUT, "empty_result")

        self._prompt_parts(messages, eligible, decide, drops)
        self._price(messages, budget, new, swaps, removed, drops)

        # A request emptied by drops goes only if its neighbours can merge into one response.
        # A request left with only system prompts is no turn at all for providers that lift system
        # text out of the messages (Anthropic), so that counts as unsafe too.
        emptied: set[int] = set()
        for i in sorted(drops):
            left = [p for j, p in enumerate(messages[i].parts) if j not in drops[i]]
            if left and not all(isinstance(p, SystemPromptPart) for p in left):
                continue
            prev = messages[i - 1] if i > 0 else None
            nxt = messages[i + 1] if i + 1 < n else None
            if (
                not left
                and isinstance(prev, ModelResponse)
                and all(isinstance(p, TextPart) for p in prev.parts)
                and isinstance(nxt, ModelResponse)
                and i + 1 not in removed_msgs
                and not any(isinstance(p, ThinkingPart) for p in nxt.parts)
            ):
                emptied.add(i)
            else:
                for rec in drops.pop(i).values():
                    new.pop(rec["key"], None)

        out = self._build(messages, swaps, drops, emptied, removed)
        before, after = tokens.estimate(messages), tokens.estimate(out)
        self.snipped.update(new)
        for key in lapsed:
            del self.snipped[key]
        events = []
        if new:
            kinds: dict[str, int] = {}
            for kind in new.values():
                kinds[kind] = kinds.get(kind, 0) + 1
            events.append(
                Event(layer=LAYER, action="snip", tokens_before=before, tokens_after=after, ids=list(new),
                      trigger="low_value", duration_ms=watch.ms(), detail={"kinds": kinds},
                      time=budget.now.isoformat())
            )
        return LayerResult(messages=out, tokens_freed=max(0, before - after), events=events)

    def _price(self, messages: list[ModelMessage], budget: Budget, new: dict[str, str],
               swaps: dict[tuple[int, int], tuple[str, str]], removed: list[tuple[int, int, list[str]]],
               drops: dict[int, dict[int, dict[str, Any]]]) -> None:
        """Leave out the new decisions a rewrite of the prompt from them on does not pay for: nothing
        snipped is lost, but a removal changes the prompt from its message on, sent uncached once. A
        read superseded by one a few requests later lies deep: an agent reading its files again each
        turn had every such request's cache cut there, and paid twice what keeping the copies did.
        The new decisions go from the deepest one whose batch (it and every newer one) earns its
        rewrite back before the next compaction (`Budget.rewrite_pays`; no look-again to price); the
        others wait (a later request, the cache's expiry, the compaction). Made ones stay."""
        if not new or budget.prices is None or cache_expired(messages, budget.now, budget.cache_ttl_s):
            return
        found = [(i, _freed(p, content), p.tool_call_id) for (i, j), (content, _) in swaps.items()  # (message,
                 if isinstance(p := messages[i].parts[j], ToolReturnPart) and p.tool_call_id in new]  # freed, key)
        found += [(r, tokens.estimate(messages[r:q + 1]), ",".join(ids)) for r, q, ids in removed if ",".join(ids) in new]
        found += [(i, rec["chars"] // 4, rec["key"]) for i, parts in drops.items() for rec in parts.values()
                  if rec["key"] in new]
        found.sort()
        out = {key for _, _, key in found}
        for k, (i, _, _) in enumerate(found):
            if budget.rewrite_pays(budget.size(messages[i:]), sum(freed for _, freed, _ in found[k:])):
                out = {key for _, _, key in found[:k]}
                break
        for key in out:
            del new[key]
        for (i, j) in list(swaps):
            if getattr(messages[i].parts[j], "tool_call_id", None) in out:
                del swaps[(i, j)]
        removed[:] = [r for r in removed if ",".join(r[2]) not in out]
        for i in list(drops):
            drops[i] = {j: rec for j, rec in drops[i].items() if rec["key"] not in out}
            if not drops[i]:
                del drops[i]

    def _empty_pairs(self, messages: list[ModelMessage], last_resp: int, decide: Decide) -> list[tuple[int, int, list[str]]]:
        """(response, request, ids) pairs holding only tool calls and their empty successful results."""
        pairs: list[tuple[int, int, list[str]]] = []
        for r in range(1, last_resp - 1):
            resp, req = messages[r], messages[r + 1]
            if not (isinstance(resp, ModelResponse) and isinstance(req, ModelRequest)):
                continue
            if not isinstance(messages[r - 1], ModelRequest) or not isinstance(messages[r + 2], ModelResponse):
                continue
            if not resp.parts or not all(isinstance(p, ToolCallPart) for p in resp.parts):
                continue
            if not req.parts or not all(isinstance(p, ToolReturnPart) and _empty(p) for p in req.parts):
                continue
            ids = [p.tool_call_id for p in resp.parts if isinstance(p, ToolCallPart)]
            rets = [p.tool_call_id for p in req.parts if isinstance(p, ToolReturnPart)]
            if sorted(ids) != sorted(rets) or len(set(ids)) != len(ids):
                continue
            if any(getattr(p, "tool_name", None) in self.keep_empty_calls_of for p in req.parts):
                continue
            key = ",".join(ids)
            if decide(key, "empty_call", True):
                pairs.append((r, r + 1, ids))
        return pairs

    def _prompt_parts(self, messages: list[ModelMessage], eligible: Eligible, decide: Decide,
                      drops: dict[int, dict[int, dict[str, Any]]]) -> None:
        """Mark older copies of repeated reminder / system text for removal (never what the user typed)."""
        keys, groups = self._prompt_keys(messages)
        for (kind, text), where in groups.items():
            head = (0, next((j for (i, j) in where if i == 0), -1))
            keep = head if kind == "system" and head[1] >= 0 else where[-1]
            for i, j in where:
                if (i, j) == keep or not eligible(i):
                    continue
                if decide(keys[(i, j)], "duplicate_text", len(where) > 1):
                    drops.setdefault(i, {})[j] = {"kind": "duplicate_text", "key": keys[(i, j)], "chars": len(text)}

    def _prompt_keys(self, messages: list[ModelMessage]
                     ) -> tuple[dict[tuple[int, int], str], dict[tuple[str, str], list[tuple[int, int]]]]:
        """The key of each reminder / system part, by (message, part), and where each text is."""
        groups: dict[tuple[str, str], list[tuple[int, int]]] = {}
        occurrences: dict[str, int] = {}
        keys: dict[tuple[int, int], str] = {}
        for i, m in enumerate(messages):
            if not isinstance(m, ModelRequest):
                continue
            for j, p in enumerate(m.parts):
                if isinstance(p, SystemPromptPart):
                    kind, text = "system", p.content
                elif isinstance(p, UserPromptPart):
                    text_or_none = prompt_text(p)
                    if text_or_none is None:
                        continue
                    text, kind = text_or_none, "reminder"
                    if not text.lstrip().startswith(self.reminder_prefixes):
                        continue
                else:
                    continue
                base = f"{kind}:{p.timestamp.isoformat()}:{hashlib.sha256(text.encode()).hexdigest()[:12]}"
                occ = occurrences.get(base, 0)
                occurrences[base] = occ + 1
                keys[(i, j)] = f"{base}:{occ}"
                groups.setdefault((kind, text), []).append((i, j))
        return keys, groups

    # -- rendering -----------------------------------------------------------------------------
    def _build(self, messages: list[ModelMessage], swaps: dict[tuple[int, int], tuple[str, str]],
               drops: dict[int, dict[int, dict[str, Any]]], emptied: set[int],
               removed: list[tuple[int, int, list[str]]]) -> list[ModelMessage]:
        """Apply the decisions in one pass, merging the responses around each emptied request."""
        removed_at = {r: ids for r, _, ids in removed}
        removed_msgs = {i for r, q, _ in removed for i in (r, q)}
        out: list[ModelMessage] = []
        recs: list[list[dict[str, Any]]] = []
        carry: list[dict[str, Any]] = []
        held: tuple[ModelResponse, list[dict[str, Any]]] | None = None
        for i, m in enumerate(messages):
            if i in removed_msgs:
                if i in removed_at:
                    tools = [p.tool_name for p in m.parts if isinstance(p, ToolCallPart)]
                    carry.append({"kind": "empty_call", "ids": removed_at[i], "tools": tools})
                continue
            dropped = drops.get(i, {})
            if i in emptied:
                prev, prev_recs = out.pop(), recs.pop()
                assert isinstance(prev, ModelResponse)
                held = (prev, [*prev_recs, *carry, *dropped.values()])
                carry = []
                continue
            parts = []
            for j, p in enumerate(m.parts):
                if j in dropped:
                    continue
                if (i, j) in swaps and isinstance(p, ToolReturnPart):
                    content, kind = swaps[(i, j)]
                    info = {"kind": kind, "lines": result_lines(p)}  # the result's own count, for a digest
                    p = replace(p, content=content, metadata=mark(p.metadata, LAYER, info))  # type: ignore[arg-type]  # a result's content becomes text, whatever its kind
                parts.append(p)
            my_recs = [*carry, *dropped.values()]
            carry = []
            changed = len(parts) != len(m.parts) or any(a is not b for a, b in zip(parts, m.parts, strict=False))
            if held is not None and isinstance(m, ModelResponse):
                prev, prev_recs = held
                parts = [*prev.parts, *parts]
                my_recs = [*prev_recs, *my_recs]
                held, changed = None, True
            out.append(replace(m, parts=parts) if changed else m)  # type: ignore[arg-type]
            recs.append(my_recs)
        for k, r in enumerate(recs):
            if r:
                out[k] = replace(out[k], metadata=mark(out[k].metadata, LAYER, {"removed": r}))
        return out
